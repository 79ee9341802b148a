"""Fisher's linear discriminant after a principal-component reduction (`model.discriminant`):
the directions it keeps are the ones the classes differ along."""

from __future__ import annotations

import numpy as np

from vision.model import PCA_DIMENSIONS, Model, discriminant, glance_of, ranked


def test_the_reduction_keeps_the_widest_directions_where_the_classes_differ():
    """The classes differ along 3 of the widest directions; beyond PCA_DIMENSIONS the
    features are narrow noise. Reduced to the narrowest directions instead, the classes
    would be lost."""
    rng = np.random.default_rng(5)
    features, per_class, classes = PCA_DIMENSIONS + 100, 80, 4
    wide = np.zeros(features)
    wide[:PCA_DIMENSIONS] = 1.0  # the widest
    wide[PCA_DIMENSIONS:] = 0.01  # narrow noise, to be dropped
    centres = np.zeros((classes, features))
    centres[:, :3] = rng.normal(0, 6.0, (classes, 3))
    labels = np.repeat(np.arange(classes), per_class)
    vectors = (centres[labels] + rng.normal(0, 1, (len(labels), features)) * wide)
    vectors = vectors.astype(np.float32)
    mean, projection = discriminant(vectors, labels)
    assert projection.shape == (features, classes - 1) and projection.dtype == np.float32
    projected = (vectors - mean) @ projection
    means = np.stack([projected[labels == c].mean(axis=0) for c in range(classes)])
    within = np.sqrt(np.mean([projected[labels == c].var(axis=0).sum() for c in range(classes)]))
    apart = min(np.linalg.norm(means[a] - means[b])
                for a in range(classes) for b in range(a + 1, classes))
    assert apart > 4 * within


def test_a_feature_never_seen_to_vary_cannot_carry_a_window_to_a_class():
    """A colour number that was (almost) the same in every learned view (no saturated pixel
    in samples photographed washed out) is scaled up to count like the rest; a window where
    it takes a value never learned was projected hundreds of spreads away, read as whichever
    class lay furthest that way (gnome-tigullio photographed: every card of another design
    read as 7H at 0.95). Clamped to the learned range, it moves the window nowhere, and the
    features that did vary decide."""
    rng = np.random.default_rng(9)
    classes, per_class = 4, 60
    labels = np.repeat(np.arange(classes), per_class)
    centres = rng.normal(0, 4.0, (classes, 6))
    vectors = np.zeros((len(labels), 8), np.float32)
    vectors[:, :6] = centres[labels] + rng.normal(0, 1, (len(labels), 6))
    vectors[:, 6] = rng.normal(0.0, 1e-4, len(labels))  # hardly varies: scaled up
    vectors[:, 7] = rng.normal(0.5, 0.2, len(labels))
    model = Model.learn(vectors, labels, ("a", "b", "c", "d"), keep=np.array([6, 7]))
    window = vectors[0].copy()  # a view of class "a"
    assert ranked(model, model.class_scores(window))[0] == "a"
    window[6] = 0.3  # never learned: 3,000 spreads of that feature away
    name, score, _, _ = ranked(model, model.class_scores(window))
    assert name == "a" and score > 0.99
    further = window.copy()
    further[6] = 1000.0  # past the learned range, any value counts as its edge
    assert np.array_equal(model.embed(further), model.embed(window))


def test_a_faces_side_at_a_glance_leads_by_its_margin_over_every_kind_that_is_not_one():
    """`glance_of`: the nearest kind with its margin over the next, and for a body passing
    or a blank face (the two look alike) the lead over the nearest kind that is neither;
    -1 where the nearest kind is not a face's side."""
    classes = ("face", "passing", "blank", "empty")
    views = np.eye(4, dtype=np.float32)  # one view per class, along its own axis
    model = Model(np.zeros(4, np.float32), np.eye(4, dtype=np.float32), views,
                  np.arange(4), classes)
    body = np.array([0.3, 0.8, 0.7, 0.1], np.float32)
    kind, score, margin, lead = glance_of(model, body)
    length = float(np.linalg.norm(body))
    assert kind == "passing"
    assert np.isclose(score, 0.8 / length) and np.isclose(margin, 0.1 / length)
    assert np.isclose(lead, 0.5 / length)  # over the face, not the blank face
    blank = np.array([0.3, 0.6, 0.7, 0.1], np.float32)
    assert glance_of(model, blank)[0] == "blank"
    assert np.isclose(glance_of(model, blank)[3], 0.4 / float(np.linalg.norm(blank)))
    face = np.array([0.9, 0.6, 0.7, 0.1], np.float32)
    assert glance_of(model, face)[0] == "face" and glance_of(model, face)[3] == -1.0
