"""Timelines of a run: when each tool call ran, and when the harness waited.

Pack §2.8 (parallel calls; retries with a growing wait), taught in notebook 08. Two parts:

* :class:`CallClock` records spans while a run happens. ``clock.wrap(registry)`` makes every
  tool of a registry log when it started and stopped, and whether it raised; ``clock.sleep``
  is a drop-in for ``run_agent(sleep=...)`` that logs each back-off wait and really waits.
  Standard library only.
* :func:`plot_timeline` draws one or more recorded runs as horizontal bars, one row per tool,
  with matplotlib (imported only when called), and returns a :class:`TimelinePicture`, which
  a notebook shows as a PNG. Its text form names the panels only, so stored notebook outputs
  do not change with the measured times.

In a notebook::

    from toolkit.widgets.timeline import CallClock, plot_timeline
    clock = CallClock()
    result = T.run_agent(model, clock.wrap(registry), "...", sleep=clock.sleep)
    plot_timeline({"my run": clock.spans})
"""

from __future__ import annotations

import functools
import html
import io
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .pictures import img_html

__all__ = ["Span", "CallClock", "TimelinePicture", "plot_timeline", "WAIT_LANE", "total_time", "describe"]

WAIT_LANE = "harness waits"


@dataclass(frozen=True)
class Span:
    """One bar of a timeline: ``lane`` (a tool name, or the waits), seconds from the clock's
    start, and ``kind``: ``ok``, ``fail`` (the tool raised) or ``wait`` (a back-off pause).

    Notebook 08.
    """

    lane: str
    start: float
    end: float
    kind: str = "ok"

    @property
    def seconds(self) -> float:
        return self.end - self.start


def total_time(spans: Iterable[Span]) -> float:
    """From the first start to the last end, in seconds (0.0 for no spans).

    Notebook 08.
    """
    spans = list(spans)
    return max(s.end for s in spans) - min(s.start for s in spans) if spans else 0.0


class CallClock:
    """Records :class:`Span` objects for tool calls and harness waits, thread-safely.

    Notebook 08.
    """

    def __init__(self, now: Callable[[], float] = time.perf_counter, wait: Callable[[float], Any] = time.sleep) -> None:
        self._now = now
        self._wait = wait
        self._lock = threading.Lock()
        self.t0 = now()
        self.spans: list[Span] = []
        self.waits: list[float] = []  # the seconds asked for, exactly as the loop asked

    def reset(self) -> None:
        """Forget every span and start counting from now."""
        with self._lock:
            self.spans = []
            self.waits = []
            self.t0 = self._now()

    def _add(self, span: Span) -> None:
        with self._lock:
            self.spans.append(span)

    def wrap(self, registry):
        """Make each tool of ``registry`` record its runs on this clock; returns the same
        registry. A tool already wrapped by another clock now records here instead."""
        for tool in registry.tools():
            inner = getattr(tool.fn, "_unclocked", tool.fn)
            tool.fn = self._timed(tool.name, inner)
        return registry

    def _timed(self, lane: str, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def timed(*args, **kwargs):
            start = self._now() - self.t0
            kind = "fail"
            try:
                value = fn(*args, **kwargs)
                kind = "ok"
                return value
            finally:
                self._add(Span(lane, start, self._now() - self.t0, kind))

        timed._unclocked = fn  # type: ignore[attr-defined]  # a function takes attributes; wrap() reads it back
        return timed

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` and record the wait (pass as ``run_agent(sleep=clock.sleep)``)."""
        with self._lock:
            self.waits.append(seconds)
        start = self._now() - self.t0
        self._wait(seconds)
        self._add(Span(WAIT_LANE, start, self._now() - self.t0, "wait"))


class TimelinePicture:
    """A drawn timeline: an ``<img>`` whose ``alt`` describes it, with the same text as a
    caption after it (JupyterLab shows no alt), and its title in plain text.

    ``alt`` says what it shows (panels, calls per kind, whether the calls overlap) without
    measured times, so stored outputs stay the same.

    Notebook 08.
    """

    def __init__(self, png: bytes, title: str, alt: str = "") -> None:
        self.png = png
        self.title = title
        self.alt = alt or title

    def _repr_png_(self) -> bytes:
        return self.png

    def caption_html(self) -> str:
        """The description as a short caption, shown right after the picture."""
        return (
            f"<p class='toolkit-caption' style='font-size:13px;margin:2px 0 8px'>"
            f"{html.escape(self.alt, quote=False)}</p>"
        )

    def _ipython_display_(self) -> None:
        from IPython.display import HTML, display

        display(HTML(img_html(self.png, self.alt) + self.caption_html()))

    def __repr__(self) -> str:
        return f"<timeline: {self.title}>"

    def save(self, path: str) -> None:
        with open(path, "wb") as fh:
            fh.write(self.png)


def _check_panels(panels: Mapping[str, Iterable[Span]]) -> dict[str, list[Span]]:
    if not isinstance(panels, Mapping) or not panels:
        raise ValueError("give the runs to draw as a dict: {'panel title': clock.spans, ...}")
    out = {}
    for title, spans in panels.items():
        spans = list(spans)
        if not all(isinstance(s, Span) for s in spans):
            raise ValueError(f"panel {title!r}: expected Span objects, such as a CallClock's spans")
        out[str(title)] = spans
    return out


def plot_timeline(
    panels: Mapping[str, Iterable[Span]], title: str = "When each call ran", width: float = 9.0, note: str = ""
) -> TimelinePicture:
    """Draw each run as a panel of horizontal bars (one row per tool), on a shared time axis.

    ``panels`` maps a panel title to the spans of one run. Bars: green for a call that
    returned, vermillion for one that raised, grey for a harness wait. Each panel is labelled
    with its measured total, to one decimal.

    Notebook 08.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ._base import FONT, OKABE_ITO

    panels = _check_panels(panels)
    colour = {"ok": OKABE_ITO["green"], "fail": OKABE_ITO["vermillion"], "wait": "#BBBBBB"}
    lanes_per_panel = [
        list(dict.fromkeys(s.lane for s in sorted(spans, key=lambda s: (s.lane == WAIT_LANE, s.start))))
        for spans in panels.values()
    ]
    heights = [max(1, len(lanes)) + 0.8 for lanes in lanes_per_panel]
    fig = Figure(figsize=(width, 0.55 * sum(heights) + 1.1), dpi=100, facecolor="white")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    x_max = max([s.end for spans in panels.values() for s in spans] + [0.1])
    for ax, (name, spans), lanes in zip(axes, panels.items(), lanes_per_panel):
        for row, lane in enumerate(lanes):
            for s in (s for s in spans if s.lane == lane):
                ax.barh(
                    row,
                    max(s.seconds, x_max * 0.006),
                    left=s.start,
                    height=0.6,
                    color=colour.get(s.kind, "#999999"),
                    edgecolor="white",
                )
        ax.set_yticks(range(len(lanes)))
        ax.set_yticklabels(lanes, fontsize=FONT["tick"])
        ax.invert_yaxis()
        ax.set_xlim(0, x_max * 1.08)
        ax.set_title(f"{name}: {total_time(spans):.1f} s measured", loc="left", fontsize=FONT["label"])
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.grid(axis="x", color="#DDDDDD")
        ax.set_axisbelow(True)
    kinds = {s.kind for spans in panels.values() for s in spans}
    legend = bool(kinds - {"ok"})
    if legend:
        from matplotlib.patches import Patch

        words = {"ok": "call returned", "fail": "call raised", "wait": "harness waits"}
        handles = [Patch(color=colour[k], label=words[k]) for k in ("ok", "fail", "wait") if k in kinds]
        fig.legend(
            handles=handles,
            loc="lower right",
            bbox_to_anchor=(0.99, 0.0),
            ncol=len(handles),
            fontsize=FONT["legend"],
            frameon=False,
        )
    axes[-1].set_xlabel("seconds since the run started", fontsize=FONT["label"])
    axes[-1].tick_params(axis="x", labelsize=FONT["tick"])
    fig.suptitle(title, fontsize=FONT["title"], x=0.01, ha="left")
    if note:
        fig.text(0.01, 0.01, note, fontsize=FONT["note"], color=OKABE_ITO["grey"], ha="left", va="bottom")
    bottom = 0.0 if not (note or legend) else 0.32 / fig.get_figheight()
    fig.tight_layout(rect=(0, bottom, 1, 1))
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return TimelinePicture(buf.getvalue(), title, describe(panels, title))


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def describe(panels: Mapping[str, Iterable[Span]], title: str = "") -> str:
    """A timeline in words, for its text alternative: per panel, the calls that returned or
    raised, the harness's waits, and whether the calls overlapped in time. Measured times are
    left out (they change on every run); the panel titles of the picture give them.

    Notebook 08, through plot_timeline.
    """
    parts = []
    for name, spans in _check_panels(panels).items():
        calls = sorted((s for s in spans if s.kind != "wait"), key=lambda s: s.start)
        kinds = [s.kind for s in spans]
        counts = (
            f"{_count(kinds.count('ok'), 'call', 'calls')} returned, {kinds.count('fail')} raised, "
            f"{_count(kinds.count('wait'), 'harness wait', 'harness waits')}"
        )
        if len(calls) < 2:
            order = ""
        elif any(b.start < max(a.end for a in calls[:i]) for i, b in enumerate(calls[1:], start=1)):
            order = "; calls overlap in time"
        else:
            order = "; calls run one after another"
        parts.append(f"{name}: {counts}{order}")
    head = f"{title}. " if title else ""
    return f"{head}Timeline, one row per tool, seconds across: " + "; ".join(parts) + "."
