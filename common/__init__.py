"""The project's shared core, imported by every stage (models, export,
site_builder, bench, tests) and importing none of them:

- ``settings``: constants and paths (context width, vocabulary size, build folders);
- ``layout``: ``ModelsFolder``, the one object that knows where the models stage
  keeps its checkpoints, vocabulary, results and corpus audit;
- ``files``: reading JSON (missing and corrupt told apart), atomic JSON writes, hashes;
- ``publish``: the build lock and the atomic swap of a finished output folder;
- ``chromium``: the one way bench and the browser tests launch Chromium
  (executable, flags, the WebGPU/WASM variants).
"""
