"""Built distributions, made once per session: the sdist, the compiled wheel built *from* it (as
pip does from an index), the pure wheel, and the pure-Python nuif-cli wheel.

Building the compiled wheel takes a minute or two on this machine; the tests that need it share
this one build.
"""

from __future__ import annotations

import pytest
from dist_build import CORE, REPO, Dists, clean_env, uv_build


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    out = tmp_path_factory.mktemp("dists")
    build_dir = tmp_path_factory.mktemp("cmake-build")
    env = clean_env()
    pure_env = clean_env(NUIF_NO_EXTENSIONS="1")
    # sdist, then the wheel from it; a private CMake build directory (not packages/nuif-core/build)
    uv_build("--sdist", "--out-dir", str(out / "sdist"), str(CORE), env=env)
    (sdist,) = (out / "sdist").glob("nuif_core-*.tar.gz")
    uv_build(
        "--wheel",
        "--out-dir",
        str(out / "compiled"),
        "-C",
        f"build-dir={build_dir}",
        str(sdist),
        env=env,
    )
    uv_build("--wheel", "--out-dir", str(out / "pure"), str(CORE), env=pure_env)
    uv_build("--wheel", "--out-dir", str(out / "pure-sdist"), str(sdist), env=pure_env)
    uv_build("--wheel", "--out-dir", str(out / "cli"), str(REPO / "packages" / "nuif-cli"), env=env)
    (compiled,) = (out / "compiled").glob("nuif_core-*.whl")
    (pure,) = (out / "pure").glob("nuif_core-*.whl")
    (pure_from_sdist,) = (out / "pure-sdist").glob("nuif_core-*.whl")
    (cli,) = (out / "cli").glob("nuif_cli-*.whl")
    return Dists(sdist, compiled, pure, pure_from_sdist, cli)
