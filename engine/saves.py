"""Save files: a Simulation's state written as a versioned .npz, read back without running anything.

A save holds plain data only: every array is a `.npy` member read with `allow_pickle=False`, and
one JSON member (`__meta__`) holds the numbers, strings and the tree that names those arrays. No
class is ever looked up by a name found in the file: the state comes from, and goes back through,
the explicit `state()` / `set_state()` of each part (`Simulation.state()`, `Simulation.from_state()`).

Reading never trusts the file. Before anything is decompressed the reader checks the file's size,
the member count, each member's declared (uncompressed) size and their sum against fixed caps, so a
zip bomb is refused from its directory alone; a member that inflates to more than it declared is
refused too. A SHA-256 of the metadata and every member, written last, tells a damaged file from a
good one. Any problem is one `SaveError` with one sentence; reading writes and deletes nothing.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import stat
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from engine.text import printable

FORMAT = "bottles-and-water save"
VERSION = 2

MAX_FILE_BYTES = 256 * 2**20      # the whole file on disk
MAX_MEMBERS = 512                 # arrays in one save
MAX_TOTAL_BYTES = 512 * 2**20     # sum of the members' declared uncompressed sizes
MAX_META_BYTES = 32 * 2**20       # the JSON member
MAX_DEPTH = 24                    # nesting of the JSON tree
_MEMBER = re.compile(r"[A-Za-z0-9_]{1,64}\.npy")
_ARRAY_KINDS = "biuf"             # bool, int, unsigned, float: nothing else is state
_REF = "$array"
_META = "__meta__"
_SUM = "__sha256__"


class SaveError(Exception):
    """A save could not be written, or a file is not a save this game can load (one sentence why)."""


def default_path() -> Path:
    """Where F5 writes: $XDG_DATA_HOME/bottles-and-water/quicksave.npz (~/.local/share by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "bottles-and-water" / "quicksave.npz"


# -- writing ---------------------------------------------------------------------------------------
def _flatten(value: Any, arrays: dict[str, np.ndarray], where: str) -> Any:
    """JSON-able tree of `value`; arrays (and numpy scalars, kept with their dtype) go to `arrays`."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, np.generic):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        a = np.asarray(value)
        if a.dtype.kind not in _ARRAY_KINDS:
            raise SaveError(f"{where}: a {a.dtype} array is not state a save can hold (numbers and bools only)")
        key = f"a{len(arrays)}"
        arrays[key] = np.array(a, order="C", copy=True)   # (ascontiguousarray makes a 0-d array 1-d)
        return {_REF: key, "scalar": isinstance(value, np.generic)}
    if isinstance(value, (list, tuple)):
        return [_flatten(v, arrays, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str) or k == _REF:
                raise SaveError(f"{where}: state keys must be strings (got {k!r})")
            out[k] = _flatten(v, arrays, f"{where}.{k}")
        return out
    raise SaveError(f"{where}: a {type(value).__name__} is not state a save can hold "
                    "(state() must return numbers, strings, bools, arrays, lists and dicts of them)")


def _digest(meta: bytes, arrays: dict[str, bytes]) -> bytes:
    h = hashlib.sha256(meta)
    for name in sorted(arrays):
        h.update(name.encode())
        h.update(arrays[name])
    return h.digest()


def write(path: str | Path, state: dict[str, Any]) -> Path:
    """Write a state tree (from `Simulation.state()`) to `path` (.npz) atomically; return the path."""
    path = Path(path)
    arrays: dict[str, np.ndarray] = {}
    tree = _flatten(state, arrays, "state")
    meta = json.dumps({"format": FORMAT, "version": VERSION, "state": tree}).encode("utf-8")
    members = {f"{k}.npy": _npy(a) for k, a in arrays.items()}
    members[f"{_META}.npy"] = _npy(np.frombuffer(meta, np.uint8))
    members[f"{_SUM}.npy"] = _npy(np.frombuffer(_digest(meta, members), np.uint8))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(buf.getvalue())
        os.replace(tmp, path)
    except OSError as exc:
        raise SaveError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path


def _npy(a: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array(out, np.array(a, order="C"), allow_pickle=False)
    return out.getvalue()


# -- reading ---------------------------------------------------------------------------------------
def read(path: str | Path) -> dict[str, Any]:
    """Read and check a save file; return its state tree (arrays in place of their references).

    Raises SaveError, with one sentence, for a missing, foreign, oversized or damaged file.
    """
    path = Path(path)
    try:
        return _read(path)
    except SaveError:
        raise
    except FileNotFoundError:
        raise SaveError(f"no save at {path} (press F5 to save first)") from None
    except OSError as exc:
        raise SaveError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (Exception, RecursionError) as exc:   # anything else a hostile file provokes in zipfile/numpy/json
        raise SaveError(f"{path} is damaged or not a Bottles & Water save ({type(exc).__name__})") from None


def _read(path: Path) -> dict[str, Any]:
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise SaveError(f"{path} is not a regular file")
    if st.st_size > MAX_FILE_BYTES:
        raise SaveError(f"{path} is {st.st_size / 2**20:.0f} MiB; saves are at most {MAX_FILE_BYTES / 2**20:.0f} MiB")
    with open(path, "rb") as f:
        data = f.read(st.st_size + 1)   # (read(n) reserves n bytes: ask for what the file holds)
    if len(data) > st.st_size:
        raise SaveError(f"{path} grew past {MAX_FILE_BYTES / 2**20:.0f} MiB while being read")
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise SaveError(f"{path} is not a Bottles & Water save (not an .npz file)")
    members: dict[str, bytes] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise SaveError(f"{path} holds {len(infos)} members; a save holds at most {MAX_MEMBERS}")
        total = 0
        for info in infos:
            if not _MEMBER.fullmatch(info.filename) or info.filename in members:
                raise SaveError(f"{path} is not a Bottles & Water save (unexpected member {info.filename[:40]!r})")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise SaveError(f"{path} uses a compression this game does not read")
            total += info.file_size
            if total > MAX_TOTAL_BYTES:
                raise SaveError(f"{path} would expand to more than {MAX_TOTAL_BYTES / 2**20:.0f} MiB; not loaded")
            members[info.filename] = b""
        for info in infos:
            with zf.open(info) as f:
                raw = f.read(info.file_size + 1)    # never more than the (checked) declared size, plus one
            if len(raw) != info.file_size:
                raise SaveError(f"{path} is damaged (member {info.filename} is not the size it declares)")
            members[info.filename] = raw
    meta_raw = members.pop(f"{_META}.npy", None)
    sum_raw = members.pop(f"{_SUM}.npy", None)
    if meta_raw is None or sum_raw is None:
        raise SaveError(f"{path} is not a Bottles & Water save (it may be from an older version of the game)")
    meta = _array(meta_raw, "metadata")
    if meta.dtype != np.uint8 or meta.ndim != 1 or meta.size > MAX_META_BYTES:
        raise SaveError(f"{path} is damaged (bad metadata)")
    meta_bytes = meta.tobytes()
    want = _array(sum_raw, "checksum")
    members_with_meta = dict(members)
    members_with_meta[f"{_META}.npy"] = meta_raw
    if want.dtype != np.uint8 or want.tobytes() != _digest(meta_bytes, members_with_meta):
        raise SaveError(f"{path} is damaged (its checksum does not match its contents)")
    doc = json.loads(meta_bytes.decode("utf-8"))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SaveError(f"{path} is not a Bottles & Water save")
    if doc.get("version") != VERSION:
        raise SaveError(f"{path} is a save of format version {printable(doc.get('version'), 20)}; "
                        f"this game reads version {VERSION}")
    arrays = {name[:-4]: _array(raw, name) for name, raw in members.items()}
    return _unflatten(doc.get("state"), arrays, 0)


def _array(raw: bytes, what: str) -> np.ndarray:
    a = np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
    if a.dtype.kind not in _ARRAY_KINDS or a.dtype.fields is not None:
        raise SaveError(f"the save's {what} holds {a.dtype} data, which is not state")
    return a


def _unflatten(node: Any, arrays: dict[str, np.ndarray], depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise SaveError("the save is damaged (nested too deep)")
    if isinstance(node, list):
        return [_unflatten(v, arrays, depth + 1) for v in node]
    if isinstance(node, dict):
        if _REF in node:
            key = node[_REF]
            if not isinstance(key, str) or key not in arrays:
                raise SaveError("the save is damaged (a reference to a missing array)")
            a = arrays[key]
            if node.get("scalar"):
                if a.ndim != 0:
                    raise SaveError("the save is damaged (a scalar stored as an array)")
                return a[()]
            return a
        return {k: _unflatten(v, arrays, depth + 1) for k, v in node.items()}
    return node


# -- checking a state tree -----------------------------------------------------------------------
def need(tree: Any, key: str, kind: type | tuple[type, ...], where: str = "state") -> Any:
    """tree[key], checked to be a `kind`; SaveError naming the field otherwise."""
    if not isinstance(tree, dict) or key not in tree:
        raise SaveError(f"the save is damaged or from another version ({where}.{key} is missing)")
    v = tree[key]
    if kind is float and isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        v = float(v)
    if kind is int and isinstance(v, np.integer):
        v = int(v)
    if not isinstance(v, kind) or (kind in (int, float) and isinstance(v, bool)):
        raise SaveError(f"the save is damaged ({where}.{key} is a {type(v).__name__})")
    return v


def check_like(saved: Any, current: Any, where: str) -> None:
    """Check that a saved state tree has the shape of one the running code makes: the same keys,
    arrays of the same dtype and trailing shape, scalars of the same kind. SaveError otherwise."""
    if isinstance(current, dict):
        if not isinstance(saved, dict) or set(saved) != set(current):
            raise SaveError(f"the save does not fit this game: {where} has other fields "
                            "(a save from another version, or damaged)")
        for k in current:
            check_like(saved[k], current[k], f"{where}.{k}")
    elif isinstance(current, np.ndarray):
        if not isinstance(saved, np.ndarray) or saved.dtype != current.dtype or saved.ndim != current.ndim \
                or saved.shape[1:] != current.shape[1:]:
            raise SaveError(f"the save does not fit this game: {where} is not a {current.dtype} array "
                            f"of shape (n,{','.join(str(s) for s in current.shape[1:])})")
    elif isinstance(current, (bool, np.bool_)):
        if not isinstance(saved, (bool, np.bool_)):
            raise SaveError(f"the save is damaged ({where} is not a bool)")
    elif isinstance(current, (int, float, np.number)):
        if isinstance(saved, (bool, np.bool_)) or not isinstance(saved, (int, float, np.number)):
            raise SaveError(f"the save is damaged ({where} is not a number)")
        if isinstance(current, (int, np.integer)) and not isinstance(saved, (int, np.integer)):
            raise SaveError(f"the save is damaged ({where} is not a whole number)")
        if isinstance(saved, (int, np.integer)) and abs(int(saved)) >= 2**62:
            raise SaveError(f"the save is damaged ({where} is out of range)")
        if math.isfinite(float(current)) and not math.isfinite(float(saved)):
            raise SaveError(f"the save is damaged ({where} is not finite)")
    elif isinstance(current, (list, tuple)):
        if not isinstance(saved, (list, tuple)):
            raise SaveError(f"the save is damaged ({where} is not a list)")
        if len(saved) == len(current):
            for i, (s, c) in enumerate(zip(saved, current)):
                if isinstance(c, (int, float, np.number, str, dict, list, np.ndarray)):
                    check_like(s, c, f"{where}[{i}]")
    elif isinstance(current, str):
        if not isinstance(saved, str):
            raise SaveError(f"the save is damaged ({where} is not text)")
