"""Surveillance: the table's events to the MQTT broker (publisher) and what the room
receives (messages, tally). See docs/surveillance.md."""
