"""CITATION.cff is valid CFF 1.2.0; .zenodo.json and references.bib agree with it.

Validation uses the CFF 1.2.0 JSON schema (``tests/data/cff-1.2.0.schema.json``, the schema file
that ``cffconvert`` 2.0.0 ships, copied verbatim) with ``jsonschema``, which is what
``cffconvert --validate`` does. cffconvert itself is not a dependency: its last release pins
``jsonschema<4``, while Jupyter Book 1's stack needs jsonschema 4.
"""

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = Path(__file__).parent / "data" / "cff-1.2.0.schema.json"


class _CffLoader(yaml.SafeLoader):
    """YAML without implicit timestamps: dates stay strings, as the CFF schema expects."""


_CffLoader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _cff():
    return yaml.load((ROOT / "CITATION.cff").read_text(), Loader=_CffLoader)


def _arxiv_ids(text):
    return set(re.findall(r"\b(\d{4}\.\d{4,5})\b", text))


def test_citation_cff_is_valid_cff_1_2_0():
    cff = _cff()
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(cff), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors)
    assert cff["cff-version"] == "1.2.0"


def test_schema_rejects_a_broken_citation_file():
    """The validator is live: a file without authors, or with a bad date, fails."""
    schema = json.loads(SCHEMA.read_text())
    broken = dict(_cff())
    broken.pop("authors")
    broken["date-released"] = "30 November 2026"
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(broken))
    assert len(errors) >= 2


def test_citation_version_matches_the_package():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert str(_cff()["version"]) == version


def test_zenodo_json_is_valid_and_agrees_with_citation_cff():
    zenodo = json.loads((ROOT / ".zenodo.json").read_text())
    cff = _cff()
    assert zenodo["title"] == cff["title"]
    assert zenodo["version"] == str(cff["version"])
    assert zenodo["license"] == cff["license"]
    assert zenodo["publication_date"] == cff["date-released"]
    cff_names = [a.get("name") or f"{a['family-names']}, {a['given-names']}" for a in cff["authors"]]
    assert [c["name"] for c in zenodo["creators"]] == cff_names
    assert zenodo["upload_type"] == "software"
    cited = {r["identifier"].removeprefix("arXiv:") for r in zenodo["related_identifiers"] if r["scheme"] == "arxiv"}
    assert cited == _arxiv_ids(yaml.safe_dump(cff["references"]))


def test_references_bib_holds_the_three_papers_and_the_companion():
    pybtex = pytest.importorskip("pybtex.database")
    bib = pybtex.parse_file(str(ROOT / "references.bib"))
    entries = bib.entries
    by_eprint = {e.fields.get("eprint"): key for key, e in entries.items() if e.fields.get("eprint")}
    assert set(by_eprint) == _arxiv_ids(yaml.safe_dump(_cff()["references"])) == {"2101.01473", "2406.05964", "1210.4460"}
    companion = [e for e in entries.values() if "svmcert" in e.fields.get("title", "")]
    assert len(companion) == 1 and "0.1.0" in companion[0].fields.get("note", "")
    for key, e in entries.items():
        assert e.fields.get("title") and e.fields.get("year") and e.persons.get("author"), key
    # the Aksu and Tajima author lists agree with CITATION.cff
    cff_refs = {next(i["value"] for i in r["identifiers"]).removeprefix("arXiv:"): r for r in _cff()["references"]}
    for eprint, key in by_eprint.items():
        bib_family = [" ".join(p.last_names) for p in entries[key].persons["author"] if str(p) != "others"]
        cff_family = [a["family-names"] for a in cff_refs[eprint]["authors"]]
        assert bib_family == cff_family, key


def test_the_book_renders_the_bibliography():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["bibtex_bibfiles"] == ["references.bib"]
    page = (ROOT / "book" / "appendix" / "references.md").read_text()
    assert "```{bibliography}" in page
    toc = (ROOT / "_toc.yml").read_text()
    assert "book/appendix/references" in toc


def test_the_repository_address_is_the_same_everywhere():
    """pyproject's Repository URL, _config.yml (repository button, footer), CITATION.cff,
    .zenodo.json and the companion's BibTeX entry name one address."""
    url = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    assert url.startswith("https://")
    assert yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"] == url
    cff = _cff()
    assert cff["repository-code"] == url == cff["url"]
    zenodo = json.loads((ROOT / ".zenodo.json").read_text())
    assert [r["identifier"] for r in zenodo["related_identifiers"] if r["scheme"] == "url"] == [url]
    bib = (ROOT / "references.bib").read_text()
    companion = bib[bib.index("@misc{svmcert2026"):]
    assert re.search(r"url\s*=\s*\{" + re.escape(url) + r"\}", companion[: companion.index("\n}")])
