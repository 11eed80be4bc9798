"""The course configuration (common/config.py): one place for every setting;
the models, the export's metadata.json and the slides' settings table read it;
`python -m models.ensure` stops when a committed checkpoint or run was trained
with other settings, naming the field and both values."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from common import settings
from common.config import CONFIG, CourseConfig, Optimizer
from common.layout import MODELS, ModelsFolder
from common.settings import EXPORT_DIR
from export.metadata import build_metadata
from export.tables.kit.sources import Sources
from export.tables.part3.settings import settings as settings_table
from models import ensure, nets
from models.checkpoints import read_info, save_checkpoint


def with_attention(**sizes) -> CourseConfig:
    return dataclasses.replace(CONFIG, attention=dataclasses.replace(CONFIG.attention, **sizes))


def test_settings_keeps_paths_only():
    public = {name: value for name, value in vars(settings).items() if name.isupper()}
    assert public and all(isinstance(v, Path) or name == "SITE_ONNX" for name, v in public.items()), public


def test_the_models_are_the_configurations_sizes():
    assert nets.COURSE == nets.course_models(CONFIG)
    mlp, one, four = (nets.COURSE[k] for k in ("mlp", "attn1", "attn4"))
    assert mlp.C == one.C == four.C == CONFIG.vocab_size == CONFIG.training.profiles["course"].vocab_size == 4000
    assert mlp.w == four.w == CONFIG.data.context == 64
    assert (mlp.d, mlp.h) == (CONFIG.mlp.d, CONFIG.mlp.h)
    assert (four.d, four.h, four.n_heads, four.d_k) == (CONFIG.attention.d, CONFIG.attention.h, 4, 16)
    assert nets.KINDS == CONFIG.kinds == ("mlp", "attn1", "attn4")
    changed = nets.course_models(with_attention(h=128, d=32))
    assert (changed["attn4"].h, changed["attn4"].d_k, changed["attn1"].d_v, changed["mlp"].h) == (128, 8, 32, 256)


def test_the_configuration_is_frozen_and_json():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CONFIG.data.context = 32
    config = CONFIG.as_dict()
    assert json.loads(json.dumps(config)) == config
    assert config["data"]["context"] == 64 and config["training"]["profiles"]["course"]["seeds"] == [11, 29, 47]
    assert config["training"]["optimizer"]["attn4"] == {"lr": 3e-3, "weight_decay": 1e-3}


def test_metadata_carries_the_resolved_configuration():
    metadata = build_metadata({}, ["<PAD>"] * 4000, {"profile": "course"}, {})
    assert metadata["config"] == CONFIG.as_dict()


def test_the_exported_metadata_config_is_the_codes():
    path = EXPORT_DIR / "metadata.json"
    assert path.exists(), "build/export is missing: run `make site` (make test does)"
    assert json.loads(path.read_text(encoding="utf-8"))["config"] == CONFIG.as_dict()


def test_the_slides_settings_come_from_the_exported_configuration(tmp_path):
    config = with_attention(h=128).as_dict()
    config["decoding"]["token_limit"] = 30
    (tmp_path / "metadata.json").write_text(json.dumps({"config": config}))
    table = settings_table(Sources(export_dir=tmp_path))
    assert (table["hidden"], table["limit"], table["w"], table["heads"], table["head_width"]) == (128, 30, 64, 4, 16)
    before_export = settings_table(Sources(export_dir=tmp_path / "absent"))
    assert (before_export["hidden"], before_export["limit"]) == (CONFIG.attention.h, CONFIG.decoding.token_limit)


# ------------------------------------------------------------------ ensure compares the checkpoints with the course
def test_ensure_stops_when_the_course_changes_the_hidden_width(models_copy, trained, capsys):
    rc = ensure.main(["--models", str(models_copy)], config=with_attention(h=128))
    captured = capsys.readouterr()
    assert rc == 1 and not trained and not captured.out
    assert captured.err.splitlines() == [
        "error: attn1 was trained with h=256, the course says 128: run make train",
        "error: attn4 was trained with h=256, the course says 128: run make train",
    ]


def test_ensure_stops_on_a_checkpoint_saved_with_another_hidden_width(models_copy, trained, capsys):
    folder = ModelsFolder(models_copy)
    info = read_info("attn4", folder)
    save_checkpoint(nets.build("attn4", h=128), {k: info[k] for k in ("seed", "selected_step", "profile")}, folder)
    rc = ensure.main(["--models", str(models_copy)])
    captured = capsys.readouterr()
    assert rc == 1 and not trained
    assert captured.err.splitlines() == ["error: attn4 was trained with h=128, the course says 256: run make train"]


def test_ensure_names_each_recorded_run_trained_with_other_protocol_settings():
    results = json.loads(MODELS.results.read_text())
    optimizer = dict(CONFIG.training.optimizer, mlp=Optimizer(2e-3, 1e-4))
    config = dataclasses.replace(CONFIG, training=dataclasses.replace(CONFIG.training, optimizer=optimizer))
    assert ensure.settings_mismatches({}, results, config) == [
        f"mlp seed {seed} was trained with lr=0.001, the course says 0.002: run make train" for seed in (11, 29, 47)
    ]
    infos = {kind: read_info(kind) for kind in nets.KINDS}
    assert ensure.settings_mismatches(infos, results) == []  # the committed models are the course's
    infos["mlp"] = dict(infos["mlp"], seed=29)
    assert ensure.settings_mismatches(infos, results) == [
        "mlp was trained with seed=29, the course says 11: run make train"
    ]
