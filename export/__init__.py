"""Export: seed-11 checkpoints -> ONNX files and the JSON the lab and the tests
read (metadata, parity references, vocabulary, presets). `python -m export`."""
