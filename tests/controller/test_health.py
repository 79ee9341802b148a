from controller.service.health import Health


def test_stale_camera_faults_once_and_stops_the_watchdog():
    health = Health()
    health.watch("camera", 1.0, now=0.0)
    health.watch("link", 3.0, now=0.0)
    health.seen("camera", 0.5)
    assert health.healthy(1.2) and health.new_faults(1.2) == []
    assert not health.healthy(1.6)
    assert health.new_faults(1.6) == ["camera: nothing for 1.1 s"]
    assert health.new_faults(1.7) == []  # reported once
    health.seen("camera", 1.8)
    assert health.healthy(1.9)


def test_lost_link_is_stale_at_once():
    health = Health()
    health.watch("link", 3.0, now=0.0)
    health.lost("link")
    assert health.new_faults(0.1) == ["link: lost"]
    assert not health.healthy(0.1)
