"""The course's one palette: colours for marks (lines, bars, dots) and for text.

Okabe & Ito's colour-blind-safe colours (``MARKS``) are right for lines and marks, but five of
them are too light for text on white (orange on white is 2.2:1; WCAG 2.1 AA asks 4.5:1 for
normal text, 3:1 for large text). So each colour has a darker twin for text on light
backgrounds (``TEXT``) and a lighter twin for text on JupyterLab's dark theme
(``TEXT_ON_DARK``). ``contrast_ratio`` is WCAG's formula; tests/test_widgets_a11y.py checks
every pair a view uses.

Rule for the views: wherever a view sets a background it also sets the text colour (``INK``
on a light panel), so the dark theme, whose default text is near-white, stays readable. Text
with no background of its own uses JupyterLab's theme variable (``THEME_INK``).

Standard library only: the figures' drawing code (scripts/figures/) imports this too. Notebooks 02, 04, 06, 08, 09, 10, 11 and 12
use it through their live views.
"""

from __future__ import annotations

__all__ = [
    "MARKS",
    "OKABE_ITO",
    "TEXT",
    "TEXT_ON_DARK",
    "INK",
    "INK_MUTED",
    "THEME_INK",
    "THEME_INK_MUTED",
    "PANEL",
    "LIGHT_BACKGROUNDS",
    "DARK_BACKGROUNDS",
    "relative_luminance",
    "contrast_ratio",
]

# Okabe & Ito (2008): colour-blind-safe colours for lines, bars and dots (not for small text).
MARKS = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
    "grey": "#666666",
}
OKABE_ITO = MARKS  # the name the views and figures have used so far

# The same hues darkened (mixed with black) until they reach at least 4.6:1 on white and on
# the light panels the views draw (LIGHT_BACKGROUNDS).
TEXT = {
    "blue": "#006BA7",
    "orange": "#885E00",
    "green": "#007555",
    "vermillion": "#A84A00",
    "sky": "#346C8C",
    "purple": "#8D5373",
    "yellow": "#6E691E",
    "black": "#000000",
    "grey": "#595959",
}
# The same hues lightened (mixed with white) until they reach at least 4.6:1 on JupyterLab's
# dark theme backgrounds (DARK_BACKGROUNDS).
TEXT_ON_DARK = {
    "blue": "#4A9BC8",
    "orange": "#E69F00",
    "green": "#14A67E",
    "vermillion": "#DC7829",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#E0E0E0",
    "grey": "#A0A0A0",
}

INK = "#1A1A1A"  # body text on a light panel
INK_MUTED = "#595959"  # notes and captions on a light panel (7:1 on white)
# text with no background of its own follows the JupyterLab theme; the fallback is for
# exported HTML without JupyterLab's stylesheet
THEME_INK = "var(--jp-content-font-color1, #1A1A1A)"
THEME_INK_MUTED = "var(--jp-content-font-color2, #595959)"
# CSS for a light panel that sets its text colour too: tables and coloured marks sit on one
PANEL = f"background:#FFFFFF;color:{INK}"

# Backgrounds the views put behind text: white, the grey of code and control boxes, the pale
# blue of a chosen option, the pale tints of notes and warnings.
LIGHT_BACKGROUNDS = ("#FFFFFF", "#F6F6F6", "#F3F3F3", "#DDE9F5", "#EEF4FA", "#FFF1E6", "#EAF6F1", "#FDF3E1", "#F7EEF3")
# JupyterLab's dark theme: --jp-layout-color0 and --jp-layout-color1.
DARK_BACKGROUNDS = ("#111111", "#212121")


def _channels(colour: str) -> tuple[float, float, float]:
    text = colour.strip().lstrip("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    if len(text) != 6 or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise ValueError(f"{colour!r} is not a colour like '#0072B2' or '#fff'.")
    return tuple(int(text[i : i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def relative_luminance(colour: str) -> float:
    """WCAG 2.1's relative luminance of a ``#rrggbb`` (or ``#rgb``) colour, 0 (black) to 1.

    Used by: toolkit/widgets/palette.py.
    """

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in _channels(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(fg: str, bg: str) -> float:
    """WCAG 2.1's contrast ratio of two colours, from 1 (same) to 21 (black on white).
    AA asks at least 4.5 for normal text and 3 for large text (18pt, or 14pt bold).

    Used by: scripts/figures/canvas.py.
    """
    hi, lo = sorted((relative_luminance(fg), relative_luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
