"""Message catalogues: read the TOML files of every language and look up student-facing strings."""

from __future__ import annotations

import contextlib
import functools
import marshal
import os
import re
import string
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from grader.common.atomic import write_atomically

LANGUAGES: tuple[str, ...] = ("en", "es")
CATALOGUE_DIR = Path(__file__).parent / "catalogue"
# Checked in this order; the first one that is set and not empty decides.
LANGUAGE_VARIABLES: tuple[str, ...] = ("GRADER_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


def default_language(environ: Mapping[str, str] | None = None) -> str:
    """Pick the feedback language from GRADER_LANG or the locale variables ('es' or 'en')."""
    env = os.environ if environ is None else environ
    for name in LANGUAGE_VARIABLES:
        value = env.get(name, "").strip()
        if value:
            return "es" if value.lower().startswith("es") else "en"
    return "en"


# What a catalogue file holds (its entries, parsed and checked) is kept beside it, as Python
# keeps bytecode: in __pycache__, stamped with the file's mtime and size and this module's (the
# code that checked them), not written when Python writes no bytecode. Parsing and checking
# the catalogues is most of a check's own start; reading the copies costs a millisecond.
TABLE_CACHE = "__pycache__"
TABLE_CACHE_SUFFIX = ".marshal"
_READER = Path(__file__)


def read_entries(source: Path, entries_of: Callable[[dict[str, Any], Path], dict[str, Any]],
                 ) -> dict[str, Any]:
    """entries_of(the TOML table of source, source), through its copy while neither the file
    nor this module has changed."""
    stamp = [number for path in (source, _READER)
             for stat in [path.stat()] for number in (stat.st_mtime_ns, stat.st_size)]
    cached = source.parent / TABLE_CACHE / (source.name + TABLE_CACHE_SUFFIX)
    try:
        saved_stamp, entries = marshal.loads(cached.read_bytes())
        if saved_stamp == stamp and isinstance(entries, dict):
            return entries
    except (OSError, EOFError, ValueError, TypeError):
        pass  # no copy, or one from another version: the file is parsed
    import tomllib  # here: with the copies in place, nothing parses TOML

    with source.open("rb") as handle:
        entries = entries_of(tomllib.load(handle), source)
    if not sys.dont_write_bytecode:
        _keep_copy(cached, [stamp, entries])
    return entries


def _keep_copy(cached: Path, value: Any) -> None:
    """Write the copy atomically; a folder that cannot be written keeps none. Two processes
    that write it at once leave one whole copy, or one that does not read back and is parsed
    again (marshal reads one object and stops, and the stamp must match)."""
    with contextlib.suppress(OSError, ValueError):
        data = marshal.dumps(value)
        cached.parent.mkdir(exist_ok=True)
        write_atomically(cached, data)


# The one place numbers get their decimal mark: `numbers.decimal_mark` of each catalogue.
_DECIMAL_COMMA = re.compile(r"\d,\d")
_CODE = re.compile(r"`[^`]*`")


def format_number(x: float, lang: str | None = None, digits: int = 6) -> str:
    """Format a number for readers of lang: ints as ints, floats to 6 significant digits, with
    the language's decimal mark (`numbers.decimal_mark`); lang None is the machine form (a
    point), for files other programs read (CSV gradebooks)."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    if x == 0:
        return "0"  # also turns -0.0 into "0", which students never mean
    text = format(x, f".{digits}g")
    if lang is None:
        return text
    return text.replace(".", Catalogue.load(lang).text("numbers.decimal_mark"))


def join_items(texts: Iterable[str], lang: str | None = None) -> str:
    """Join the items of a list for readers of lang: with ", ", or with the language's
    `numbers.list_separator` ("; " in Spanish) when an item holds a decimal comma outside its
    code spans, so that "(1, 2,5)" never happens."""
    items = list(texts)
    if lang is None or not any(_DECIMAL_COMMA.search(_CODE.sub("", item)) for item in items):
        return ", ".join(items)
    return Catalogue.load(lang).text("numbers.list_separator").join(items)


def _plural(value: str, spec: str, where: str) -> str:
    """The word of a `{count:one|other}` field: `one` when the value is 1, `other` otherwise."""
    forms = spec.split("|")
    if len(forms) != 2 or not all(forms):
        raise ValueError(f"{where}: a plural field is {{name:singular|plural}}, not {spec!r}")
    return forms[0] if value.strip() in ("1", "-1") else forms[1]


class _MessageFormatter(string.Formatter):
    """str.format with one addition: `{count:entrega|entregas}` picks the word for count."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec:
            return _plural(str(value), format_spec, "plural")
        return format(value, "")


_FORMATTER = _MessageFormatter()


def _placeholders(template: str, where: str) -> tuple[str, ...]:
    """Return the named fields of a str.format template; anything but plain names is an error."""
    names: list[str] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"{where}: malformed template: {exc}") from None
    for _literal, field, spec, conversion in parsed:
        if field is None:
            continue
        if not field.isidentifier() or conversion:
            raise ValueError(f"{where}: placeholder {{{field}}} must be a plain name")
        if spec:
            _plural("", spec, where)  # the only spec a message may use: singular|plural
        if field not in names:
            names.append(field)
    return tuple(names)


def _flatten(table: Mapping[str, Any], prefix: str, source: Path) -> dict[str, str]:
    """Flatten nested TOML tables into dotted keys, checking that every leaf is a string."""
    flat: dict[str, str] = {}
    for name, value in table.items():
        if "." in name:
            raise ValueError(f"{source}: key {prefix}{name!r} must not contain a dot")
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{key}.", source))
        elif isinstance(value, str):
            _placeholders(value, f"{source}: {key}")
            flat[key] = value
        else:
            raise ValueError(f"{source}: {key} must be a string, not {type(value).__name__}")
    return flat


def _check_language(lang: str) -> None:
    """Raise ValueError naming the choices when lang is not a supported language."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; choose one of: {', '.join(LANGUAGES)}")


@dataclass(frozen=True, eq=False)
class Catalogue:
    """The student-facing strings of one language, looked up by dotted key."""

    lang: str
    entries: Mapping[str, str]

    @classmethod
    def load(cls, lang: str) -> Catalogue:
        """Return the packaged catalogue for lang (loaded once per language)."""
        _check_language(lang)
        return _load_packaged(lang)

    def text(self, key: str, **params: str) -> str:
        """Return the message at key with its {placeholders} filled from params."""
        try:
            template = self.entries[key]
        except KeyError:
            raise KeyError(f"no message {key!r} in the {self.lang!r} catalogue") from None
        try:
            return _FORMATTER.vformat(template, (), params)
        except KeyError as exc:
            raise KeyError(
                f"message {key!r} ({self.lang}) needs the parameter {exc.args[0]!r}"
            ) from None

    def number(self, x: float) -> str:
        """Format a number with this language's decimal mark (see format_number)."""
        return format_number(x, self.lang)

    def has(self, key: str) -> bool:
        """Tell whether the catalogue holds a message at key."""
        return key in self.entries

    def placeholders(self, key: str) -> tuple[str, ...]:
        """Return the parameter names the message at key uses, in order of appearance."""
        return _placeholders(self.text_template(key), key)

    def text_template(self, key: str) -> str:
        """Return the unformatted template at key."""
        try:
            return self.entries[key]
        except KeyError:
            raise KeyError(f"no message {key!r} in the {self.lang!r} catalogue") from None


# The texts of one lab, of the command line and of the platforms: one file each, every entry
# in every language (`title.en`, `title.es`), so a missing translation is a missing line in review.
BILINGUAL_FOLDER = "bilingual"


def _bilingual(table: Mapping[str, Any], prefix: str, source: Path) -> dict[str, dict[str, str]]:
    """Map each dotted key of a bilingual file to its texts by language; a text under a name
    that is not a language, or an entry without every language, is an error naming the key."""
    entries: dict[str, dict[str, str]] = {}
    texts: dict[str, str] = {}
    for name, value in table.items():
        if "." in name:
            raise ValueError(f"{source}: key {prefix}{name!r} must not contain a dot")
        if isinstance(value, Mapping):
            entries.update(_bilingual(value, f"{prefix}{name}.", source))
        elif name not in LANGUAGES:
            raise ValueError(f"{source}: {prefix}{name}: {name!r} is not a language of the "
                             f"catalogue ({', '.join(LANGUAGES)}); a text is one line per "
                             f"language, as in title.en = \"...\"")
        elif not isinstance(value, str):
            raise ValueError(f"{source}: {prefix}{name} must be a string, "
                             f"not {type(value).__name__}")
        else:
            _placeholders(value, f"{source}: {prefix}{name}")
            texts[name] = value
    if texts:
        key = prefix.rstrip(".")
        for lang in LANGUAGES:
            if not texts.get(lang, "").strip():
                raise ValueError(f"{source}: {key} has no {lang} text (write {key}.{lang})")
        entries[key] = texts
    return entries


def bilingual_entries(source: Path) -> dict[str, dict[str, str]]:
    """The entries of one bilingual catalogue file: dotted key -> language -> text (read once
    for every language: each language's catalogue reads the same file)."""
    stat = Path(source).stat()
    return _read_bilingual(str(source), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _read_bilingual(source: str, _mtime_ns: int, _size: int) -> dict[str, dict[str, str]]:
    """bilingual_entries, cached by path and version (a file edited since reads again)."""
    return read_entries(Path(source), lambda table, path: _bilingual(table, "", path))


def catalogue_files(directory: Path, lang: str) -> dict[Path, dict[str, str]]:
    """Each file the catalogue of lang is read from, with the texts of lang it holds:
    <directory>/<lang>.toml (the shared texts of that language), then every
    <directory>/bilingual/*.toml (one per lab, the command line, the platforms)."""
    directory = Path(directory)
    shared = directory / f"{lang}.toml"
    files = {shared: read_entries(shared, lambda table, path: _flatten(table, "", path))}
    for source in sorted((directory / BILINGUAL_FOLDER).glob("*.toml")):
        files[source] = {key: texts[lang] for key, texts in bilingual_entries(source).items()}
    return files


def load_from(directory: Path, lang: str) -> Catalogue:
    """Load the catalogue of lang from directory (see catalogue_files) as one catalogue; a key
    defined in two files is an error naming both."""
    _check_language(lang)
    entries: dict[str, str] = {}
    origin: dict[str, Path] = {}
    for source, texts in catalogue_files(directory, lang).items():
        for key, value in texts.items():
            if key in entries:
                raise ValueError(f"{source}: {key} is already defined in {origin[key]}")
            entries[key], origin[key] = value, source
    return Catalogue(lang=lang, entries=MappingProxyType(entries))


@functools.lru_cache(maxsize=len(LANGUAGES))
def _load_packaged(lang: str) -> Catalogue:
    """Load and cache the catalogue shipped with the grader."""
    return load_from(CATALOGUE_DIR, lang)


def _catalogues(directory: Path | None) -> dict[str, Catalogue]:
    """Load every language, from directory or from the packaged catalogues."""
    if directory is None:
        return {lang: Catalogue.load(lang) for lang in LANGUAGES}
    return {lang: load_from(directory, lang) for lang in LANGUAGES}


def missing_translations(directory: Path | None = None) -> dict[str, list[str]]:
    """Map each language to the keys some other language has and it lacks or leaves empty."""
    catalogues = _catalogues(directory)
    every_key = set().union(*(catalogue.entries for catalogue in catalogues.values()))
    missing: dict[str, list[str]] = {}
    for lang, catalogue in catalogues.items():
        gaps = sorted(key for key in every_key if not catalogue.entries.get(key, "").strip())
        if gaps:
            missing[lang] = gaps
    return missing


def placeholder_mismatches(directory: Path | None = None) -> list[str]:
    """List the keys whose {placeholders} differ between languages (a translation bug)."""
    catalogues = list(_catalogues(directory).values())
    shared = set.intersection(*(set(catalogue.entries) for catalogue in catalogues))
    return sorted(
        key
        for key in shared
        if len({frozenset(catalogue.placeholders(key)) for catalogue in catalogues}) > 1
    )
