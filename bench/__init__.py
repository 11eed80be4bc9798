"""The benchmark stage: measures the built site in a real browser and writes
bench/bench.json, which export/tables reads as an input (like
models/results.json). `make bench` runs `python -m bench`."""
