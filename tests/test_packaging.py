"""What can be checked of the wheel pipeline without Docker: cibuildwheel's build
identifiers for every platform, and the workflow files."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHONS = ["cp39", "cp310", "cp311", "cp312", "cp313", "cp314"]
PLATFORMS = {
    "linux": ("x86_64,aarch64", [f"{lib}_{arch}" for lib in ("manylinux", "musllinux")
                                 for arch in ("x86_64", "aarch64")]),
    "macos": ("x86_64,arm64", ["macosx_x86_64", "macosx_arm64"]),
    "windows": ("AMD64", ["win_amd64"]),
}

pytestmark = pytest.mark.skipif(not (ROOT / "pyproject.toml").exists(),
                                reason="needs the source tree (run from a checkout)")


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_cibuildwheel_build_identifiers(platform):
    pytest.importorskip("cibuildwheel", reason="needs the wheels extra; CI's typing job "
                        "runs it (pip install '.[wheels]')")
    archs, tags = PLATFORMS[platform]
    out = subprocess.run(
        [sys.executable, "-m", "cibuildwheel", "--platform", platform, "--archs", archs,
         "--print-build-identifiers", str(ROOT)],
        capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    ids = set(out.stdout.split())
    expected = {f"{py}-{tag}" for py in PYTHONS for tag in tags}
    assert ids == expected, (sorted(ids - expected), sorted(expected - ids))
    assert not any("t-" in i.split("-")[0] + "-" for i in ids)   # no free-threaded builds
    assert not any(i.endswith(("win32", "i686")) for i in ids)


def test_workflows_parse_and_name_their_jobs():
    yaml = pytest.importorskip("yaml")
    wheels = yaml.safe_load((ROOT / ".github/workflows/wheels.yml").read_text())
    assert set(wheels["jobs"]) == {"build_wheels", "build_sdist", "publish"}
    runners = wheels["jobs"]["build_wheels"]["strategy"]["matrix"]["os"]
    assert {"ubuntu-latest", "ubuntu-24.04-arm", "macos-15-intel", "macos-14",
            "windows-latest"} <= set(runners)
    publish = wheels["jobs"]["publish"]
    assert publish["permissions"]["id-token"] == "write"
    assert any("pypi-publish" in step.get("uses", "") for step in publish["steps"])
    ci = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())
    assert "test" in ci["jobs"]
    assert "3.9" in ci["jobs"]["test"]["strategy"]["matrix"]["python"]


# GitHub-hosted runner labels: the ones available now, and the retired ones a workflow
# must not name (a job naming one never gets a runner: no wheel is built).
CURRENT_RUNNERS = {
    "ubuntu-latest", "ubuntu-24.04", "ubuntu-22.04", "ubuntu-24.04-arm", "ubuntu-22.04-arm",
    "macos-latest", "macos-14", "macos-15", "macos-15-intel", "macos-26",
    "windows-latest", "windows-2022", "windows-2025", "windows-11-arm",
}
RETIRED_RUNNERS = {
    "macos-13", "macos-12", "macos-11", "macos-10.15", "ubuntu-20.04", "ubuntu-18.04",
    "windows-2019", "windows-2016",
}


def _runner_labels(workflow):
    labels = []
    for job in workflow["jobs"].values():
        runs_on = job.get("runs-on", "")
        if "matrix.os" in str(runs_on):
            labels += job["strategy"]["matrix"]["os"]
        else:
            labels.append(runs_on)
    return labels


def test_workflows_name_only_current_runners():
    yaml = pytest.importorskip("yaml")
    for name in ("wheels.yml", "ci.yml"):
        labels = _runner_labels(yaml.safe_load((ROOT / ".github/workflows" / name).read_text()))
        assert labels
        assert not set(labels) & RETIRED_RUNNERS, (name, set(labels) & RETIRED_RUNNERS)
        assert set(labels) <= CURRENT_RUNNERS, (name, set(labels) - CURRENT_RUNNERS)


def test_sdist_manifest_lists_every_source_kind():
    text = (ROOT / "MANIFEST.in").read_text()
    for pattern in ("*.pyx", "*.pxd", "*.pxi", "*.pyi", "*.h", "*.weights", "*.cybook"):
        assert pattern in text


def test_wheel_carries_the_learned_data():
    """The evaluation weights and the opening book are package data of the wheel."""
    text = (ROOT / "pyproject.toml").read_text()
    line = next(l for l in text.splitlines() if l.startswith('"*" = ['))
    assert '"*.weights"' in line and '"*.cybook"' in line
    assert (ROOT / "src/cythello/eval/default.weights").is_file()
    assert (ROOT / "src/cythello/book/default.cybook").is_file()


def test_version_in_one_place():
    import cythello
    version_file = (ROOT / "src/cythello/_version.py").read_text()
    assert f'"{cythello.__version__}"' in version_file
    assert 'version = { attr = "cythello._version.__version__" }' in (ROOT / "pyproject.toml").read_text()


def test_the_docs_settings_tables_are_made_from_the_settings_types():
    """The reference's settings page is generated from SearchSettings and PUCTSettings when
    the documentation is built (docs/conf.py), so it cannot fall behind them."""
    import importlib.util

    from cythello import PUCTSettings, SearchSettings
    from cythello.search.settings import settings_table
    spec = importlib.util.spec_from_file_location("docs_conf", ROOT / "docs" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    page = conf._settings_page()
    assert settings_table(SearchSettings) in page and settings_table(PUCTSettings) in page
