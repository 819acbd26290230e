"""Provenance: CI variables, then git; JUDGEKIT_* overrides; never an exception."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from judgekit.store.provenance import Provenance, detect_provenance


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real repository with one commit on the branch ``feature``."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "feature")
    (path / "agent.py").write_text("print('hi')\n")
    git(path, "add", "agent.py")
    git(
        path,
        "-c",
        "user.name=Test",
        "-c",
        "user.email=test@example.com",
        "-c",
        "commit.gpgsign=false",
        "commit",
        "-q",
        "-m",
        "first",
    )
    return path


@pytest.fixture
def outside_any_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder git will not look above, so no enclosing repository is found."""
    folder = tmp_path / "plain"
    folder.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    return folder


def test_github_pull_request(monkeypatch: pytest.MonkeyPatch, outside_any_repo: Path) -> None:
    monkeypatch.setenv("GITHUB_SHA", "a" * 40)
    monkeypatch.setenv("GITHUB_HEAD_REF", "fix/refunds")
    monkeypatch.setenv("GITHUB_REF_NAME", "42/merge")
    assert detect_provenance(cwd=outside_any_repo) == Provenance(
        git_sha="a" * 40, branch="fix/refunds"
    )


def test_github_push_has_an_empty_head_ref(
    monkeypatch: pytest.MonkeyPatch, outside_any_repo: Path
) -> None:
    monkeypatch.setenv("GITHUB_SHA", "b" * 40)
    monkeypatch.setenv("GITHUB_HEAD_REF", "")
    monkeypatch.setenv("GITHUB_REF_NAME", "main")
    found = detect_provenance(cwd=outside_any_repo)
    assert (found.git_sha, found.branch) == ("b" * 40, "main")


def test_gitlab(monkeypatch: pytest.MonkeyPatch, outside_any_repo: Path) -> None:
    monkeypatch.setenv("CI_COMMIT_SHA", "c" * 40)
    monkeypatch.setenv("CI_COMMIT_REF_NAME", "release")
    found = detect_provenance(cwd=outside_any_repo)
    assert (found.git_sha, found.branch) == ("c" * 40, "release")


def test_judgekit_variables_override_ci_and_git(
    monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    monkeypatch.setenv("GITHUB_SHA", "a" * 40)
    monkeypatch.setenv("GITHUB_REF_NAME", "main")
    monkeypatch.setenv("JUDGEKIT_GIT_SHA", "d" * 40)
    monkeypatch.setenv("JUDGEKIT_BRANCH", "nightly")
    monkeypatch.setenv("JUDGEKIT_AGENT_VERSION", "2.0.1")
    assert detect_provenance(cwd=repo) == Provenance(
        git_sha="d" * 40, branch="nightly", agent_version="2.0.1"
    )


def test_arguments_win_over_detection(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    monkeypatch.setenv("JUDGEKIT_BRANCH", "nightly")
    monkeypatch.setenv("JUDGEKIT_AGENT_VERSION", "2.0.1")
    found = detect_provenance(
        agent_version="3.0", tags={"model": "gpt-4o"}, branch="main", cwd=repo
    )
    assert found == Provenance(
        git_sha=git(repo, "rev-parse", "HEAD"),
        branch="main",
        agent_version="3.0",
        tags={"model": "gpt-4o"},
    )


def test_git_repository(repo: Path) -> None:
    sha = git(repo, "rev-parse", "HEAD")
    assert len(sha) == 40
    assert detect_provenance(cwd=repo) == Provenance(git_sha=sha, branch="feature")


def test_a_commit_from_a_variable_still_takes_the_branch_from_git(
    monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    monkeypatch.setenv("JUDGEKIT_GIT_SHA", "abc123")
    assert detect_provenance(cwd=repo) == Provenance(git_sha="abc123", branch="feature")


def test_detached_head_has_no_branch(repo: Path) -> None:
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach")
    assert detect_provenance(cwd=repo) == Provenance(git_sha=sha, branch=None)


def test_folder_outside_any_repository(outside_any_repo: Path) -> None:
    assert detect_provenance(cwd=outside_any_repo) == Provenance()


def test_no_git_on_the_path(monkeypatch: pytest.MonkeyPatch, repo: Path, tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert detect_provenance(cwd=repo, agent_version="1.0") == Provenance(agent_version="1.0")


def test_root_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", "/")
    assert detect_provenance(cwd="/") == Provenance()


def test_a_missing_folder_is_no_provenance_not_an_error(tmp_path: Path) -> None:
    assert detect_provenance(cwd=tmp_path / "gone") == Provenance()
