"""The training protocol as specified (README, "The models"; the course: four
heads reuse the one-head learning rate and weight decay, frozen before any
test scoring). Typed here on purpose, apart from the code's own settings, so
that a change to the code's table fails a test (tests/test_protocol.py,
tests/test_train.py)."""

PROTOCOL_OPTIMIZER = {"mlp": (1e-3, 1e-4), "attn1": (3e-3, 1e-3), "attn4": (3e-3, 1e-3)}
PROTOCOL_CLIP_NORM = 1.0
