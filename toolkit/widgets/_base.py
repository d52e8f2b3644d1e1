"""What every live view shares: colours, a figure that redraws fast, and error handling.

A view is a pure computation (``compute``) plus a thin drawing layer (``draw``). ``refresh``
runs both whenever a control changes. A mistake in what a student typed raises
:class:`InputError`; the view shows its sentence and keeps the last good state and picture.

ipywidgets and matplotlib are imported inside the functions that need them, so importing this
module costs nothing and works without them.
"""

from __future__ import annotations

import html
import io
from typing import Any, Iterable

__all__ = ["OKABE_ITO", "FONT", "InputError", "LiveFigure", "LiveView", "esc", "need_widgets"]

# Okabe & Ito's colour-blind-safe palette; readable on a projector against white.
OKABE_ITO = {
    "blue": "#0072B2", "orange": "#E69F00", "green": "#009E73", "vermillion": "#D55E00",
    "sky": "#56B4E9", "purple": "#CC79A7", "yellow": "#F0E442", "black": "#000000",
    "grey": "#666666",
}
# font sizes in points, large enough to read from the back of a lecture room
FONT = {"title": 15, "label": 13, "tick": 12, "legend": 11.5, "note": 11}
LINE_WIDTH = 2.5


class InputError(ValueError):
    """Something a student typed cannot be used; the message says what to change."""


def esc(value: Any) -> str:
    """Text made safe to put inside HTML."""
    return html.escape(str(value), quote=True)


def need_widgets():
    """Import ipywidgets, or say plainly how to get it."""
    try:
        import ipywidgets
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("The live views need ipywidgets and matplotlib. Install them with "
                          "`pip install -e '.[widgets]'` (or run `make lab`).") from None
    return ipywidgets


class LiveFigure:
    """One matplotlib figure kept for the life of a view, rendered to PNG bytes.

    Drawing text (titles, tick labels, legends) is most of matplotlib's cost, and it rarely
    changes while a student drags a slider. So the figure is drawn once without its
    ``animated`` artists, that picture is kept, and each update only pastes it back and draws
    the artists that moved (the "blitting" technique of matplotlib's animation guide).

    ``render(key)`` keeps one such background per ``key``: pass a key that names everything
    static (a title, the axis categories), and switching back to a key seen before costs no
    full draw. :meth:`invalidate` forgets them all.
    """

    MAX_BACKGROUNDS = 8

    def __init__(self, width: float = 9.0, height: float = 4.4, dpi: int = 100) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.fig = Figure(figsize=(width, height), dpi=dpi, facecolor="white")
        self.canvas = FigureCanvasAgg(self.fig)
        self.moving: list = []
        self._backgrounds: dict = {}
        self.png = b""
        self.full_draws = 0

    def animate(self, *artists) -> list:
        """Mark artists as the ones that change on each update; returns them."""
        for a in artists:
            a.set_animated(True)
            self.moving.append(a)
        return list(artists)

    def forget(self, artists: Iterable) -> None:
        """Stop drawing these artists (after removing them from their axes)."""
        gone = set(map(id, artists))
        self.moving = [a for a in self.moving if id(a) not in gone]

    def invalidate(self) -> None:
        self._backgrounds.clear()

    def render(self, key: Any = None) -> bytes:
        background = self._backgrounds.get(key)
        if background is None:
            self.canvas.draw()  # animated artists are left out of a full draw
            if len(self._backgrounds) >= self.MAX_BACKGROUNDS:
                self._backgrounds.clear()
            self._backgrounds[key] = self.canvas.copy_from_bbox(self.fig.bbox)
            self.full_draws += 1
        else:
            self.canvas.restore_region(background)
        renderer = self.canvas.get_renderer()
        for a in self.moving:
            if a.get_visible() and (a.axes is None or a.axes.get_visible()):
                a.draw(renderer)
        self.png = self._encode()
        return self.png

    def _encode(self) -> bytes:
        """The canvas as an RGB PNG with light compression (level 1 took about two thirds
        of the default level's time here, for a file 5% larger). The same pixels always give
        the same bytes, so the same controls give the same picture."""
        from PIL import Image  # a dependency of matplotlib

        w, h = self.canvas.get_width_height()
        image = Image.frombuffer("RGBA", (w, h), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        out = io.BytesIO()
        image.convert("RGB").save(out, format="png", compress_level=1)
        return out.getvalue()

    def save(self, path: str) -> None:
        """Write the last rendered picture to a PNG file."""
        with open(path, "wb") as fh:
            fh.write(self.png or self.render())


class LiveView:
    """Base class: controls → ``compute()`` → ``state`` → ``draw(state)``.

    Subclasses build ``self.widget`` (the box a notebook shows), call :meth:`watch` on their
    controls, and implement ``compute`` (pure, may raise :class:`InputError`) and ``draw``.
    ``message`` holds the last complaint ("" when all is well); ``state`` the last good result.
    """

    name = "view"

    def __init__(self) -> None:
        W = need_widgets()
        self.W = W
        self.state: Any = None
        self.message = ""
        self.redraws = 0
        self.message_box = W.HTML(value="")

    def watch(self, *controls) -> None:
        for c in controls:
            c.observe(self._changed, names="value")

    def _changed(self, change=None) -> None:
        self.refresh()

    def compute(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def draw(self, state) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def refresh(self) -> bool:
        """Recompute and redraw; on bad input, say why and keep the last good view."""
        try:
            state = self.compute()
        except InputError as exc:
            self._say(str(exc))
            return False
        except Exception as exc:  # never a traceback in front of a class
            self._say(f"Could not update the view ({type(exc).__name__}: {exc}). "
                      "The last good view is kept.")
            return False
        try:
            self.draw(state)
        except Exception as exc:
            self._say(f"Could not draw the new view ({type(exc).__name__}: {exc}). "
                      "The last good view is kept.")
            return False
        self.state = state
        self.redraws += 1
        self._say("")
        return True

    def _say(self, text: str) -> None:
        self.message = text
        self.message_box.value = (
            "" if not text else
            f"<div style='color:#8a2000;background:#fff1e6;border-left:4px solid "
            f"{OKABE_ITO['vermillion']};padding:4px 8px;font-size:14px'>⚠ {esc(text)}</div>")

    # a view displays itself: `passk_explorer()` on the last line of a cell is enough
    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle["text/plain"] = f"<{self.name}: a live view; run the notebook in Jupyter to use it>"
        return bundle
