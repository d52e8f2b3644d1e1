"""Links that hand the course to a class: a Binder launch link and badge, an nbgitpuller link.

``python -m toolkit.course.deploy --repo https://github.com/OWNER/REPO [--hub https://hub.example.edu]``
prints them. Binder builds the environment from ``environment.yml``; on a JupyterHub that has
nbgitpuller, the link clones the repository into the student's home on first click and merges
new commits on later clicks (docs/running-a-class.md says what happens to a student's own edits).

Standard library only; nothing here touches the network.
"""

from __future__ import annotations

import argparse
import sys
from urllib.parse import quote, urlencode, urlsplit

__all__ = ["binder_url", "binder_badge", "nbgitpuller_url", "repo_dir_name"]

BINDER = "https://mybinder.org"
FIRST_NOTEBOOK = "notebooks/01_why_tools.ipynb"


def _check_url(url: str, what: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"{what} must be a full http(s) address such as https://github.com/OWNER/REPO; got {url!r}")
    return url.rstrip("/")


def repo_dir_name(repo: str) -> str:
    """The folder ``git clone`` makes for ``repo`` (its last path part, without ``.git``).

    Used by: docs/running-a-class.md: Deploying to a class.
    """
    name = urlsplit(_check_url(repo, "the repository")).path.rstrip("/").rsplit("/", 1)[-1]
    name = name[:-4] if name.endswith(".git") else name
    if not name:
        raise ValueError(f"cannot tell the repository's name from {repo!r}")
    return name


def binder_url(repo: str, ref: str = "main", path: str = FIRST_NOTEBOOK, binder: str = BINDER) -> str:
    """A Binder link that builds ``repo`` at ``ref`` and opens ``path`` in JupyterLab.

    Used by: docs/running-a-class.md: Deploying to a class.
    """
    repo, binder = _check_url(repo, "the repository"), _check_url(binder, "the BinderHub")
    parts = urlsplit(repo)
    segments = parts.path.strip("/").removesuffix(".git").split("/")
    if parts.netloc == "github.com" and len(segments) == 2:
        spec = f"gh/{segments[0]}/{segments[1]}/{quote(ref, safe='')}"
    else:  # any other git host: the whole clone address, escaped
        spec = f"git/{quote(repo, safe='')}/{quote(ref, safe='')}"
    return f"{binder}/v2/{spec}?" + urlencode({"urlpath": f"lab/tree/{path}"})


def binder_badge(repo: str, ref: str = "main", path: str = FIRST_NOTEBOOK) -> str:
    """The Markdown for a "launch binder" badge pointing at :func:`binder_url`.

    Used by: docs/running-a-class.md: Deploying to a class.
    """
    return f"[![Binder]({BINDER}/badge_logo.svg)]({binder_url(repo, ref, path)})"


def nbgitpuller_url(hub: str, repo: str, branch: str = "main", path: str = FIRST_NOTEBOOK) -> str:
    """An nbgitpuller link: sync ``repo`` into the student's home, then open ``path``.

    Used by: docs/running-a-class.md: Deploying to a class.
    """
    hub = _check_url(hub, "the JupyterHub address")
    query = urlencode(
        {
            "repo": _check_url(repo, "the repository"),
            "urlpath": f"lab/tree/{repo_dir_name(repo)}/{path}",
            "branch": branch,
        }
    )
    return f"{hub}/hub/user-redirect/git-pull?{query}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m toolkit.course.deploy", description="Print Binder and nbgitpuller links for a class."
    )
    parser.add_argument("--repo", required=True, help="clone address, e.g. https://github.com/OWNER/REPO")
    parser.add_argument("--branch", default="main", help="branch or tag to hand out (default: main)")
    parser.add_argument("--hub", help="your JupyterHub's address, for the nbgitpuller link")
    parser.add_argument("--notebook", default=FIRST_NOTEBOOK, help="the file to open first")
    args = parser.parse_args(argv)
    try:
        print("Binder link:  ", binder_url(args.repo, args.branch, args.notebook))
        print("Binder badge: ", binder_badge(args.repo, args.branch, args.notebook))
        if args.hub:
            print("nbgitpuller:  ", nbgitpuller_url(args.hub, args.repo, args.branch, args.notebook))
        else:
            print("nbgitpuller:   add --hub https://your-hub.example.edu to get this link")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
