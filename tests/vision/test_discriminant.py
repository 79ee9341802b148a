"""Fisher's linear discriminant after a principal-component reduction (`model.discriminant`):
the directions it keeps are the ones the classes differ along."""

from __future__ import annotations

import numpy as np

from vision.model import PCA_DIMENSIONS, discriminant


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
