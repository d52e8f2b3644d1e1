"""The week's quiz: one radio group per question, a Check button, a score and explanations.

Pack §6 (ten questions, one per topic of the week). The questions live in ``data/quiz.json``;
:func:`grade` is the pure part, so checks and tests need no browser. In a notebook::

    from toolkit.widgets import quiz
    quiz()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..data import load_json
from ._base import LiveView, esc
from .palette import INK, TEXT, THEME_INK_MUTED

__all__ = ["load_quiz", "grade", "QuizResult", "Quiz", "quiz"]


def load_quiz(name: str = "quiz.json") -> list[dict]:
    """The questions, each with ``question``, ``options``, ``answer`` (an index) and
    ``explanation``. Raises ValueError naming any malformed question.

    Notebook 12.
    """
    questions = load_json(name)["questions"]
    for i, q in enumerate(questions, start=1):
        options = q.get("options")
        if not q.get("question") or not isinstance(options, list) or len(options) < 2:
            raise ValueError(f"{name}, question {i}: needs a question and at least two options")
        if not isinstance(q.get("answer"), int) or not 0 <= q["answer"] < len(options):
            raise ValueError(f"{name}, question {i}: 'answer' must be the index of one of its options")
    return questions


@dataclass
class QuizResult:
    """A marked quiz: the score and, per question, right, wrong or blank.

    Notebook 12, through quiz.
    """

    score: int
    total: int
    answered: int
    verdicts: list = field(default_factory=list)  # per question: True, False, or None (no answer)
    explanations: list = field(default_factory=list)

    @property
    def text(self) -> str:
        return f"{self.score} of {self.total} right ({self.answered} answered)"


def grade(questions: Sequence[dict], answers: Sequence) -> QuizResult:
    """Mark answers given as option indexes (None for a question left blank).

    Notebook 12, through quiz.
    """
    answers = list(answers)
    if len(answers) != len(questions):
        raise ValueError(f"got {len(answers)} answers for {len(questions)} questions")
    verdicts = [None if a is None else a == q["answer"] for q, a in zip(questions, answers)]
    return QuizResult(
        sum(1 for v in verdicts if v),
        len(questions),
        sum(1 for v in verdicts if v is not None),
        verdicts,
        [q["explanation"] for q in questions],
    )


class Quiz(LiveView):
    """Radio buttons per question, "Check answers", a score and a line of feedback each.

    Notebook 12, through quiz.
    """

    name = "quiz"

    def __init__(self, questions: Sequence[dict] | None = None) -> None:
        super().__init__()
        W = self.W
        self.questions = list(questions) if questions is not None else load_quiz()
        self.choices = []
        self.feedback = []
        blocks = []
        for i, q in enumerate(self.questions, start=1):
            radio = W.RadioButtons(
                options=[(text, j) for j, text in enumerate(q["options"])],
                value=None,
                layout=W.Layout(width="auto", height="auto"),
            )
            radio.add_class("toolkit-quiz")
            note = W.HTML()
            radio.observe(self._changed, names="value")
            self.choices.append(radio)
            self.feedback.append(note)
            blocks.append(
                W.VBox(
                    [
                        W.HTML(f"<div style='font-size:15px;margin-top:8px'><b>{i}.</b> {esc(q['question'])}</div>"),
                        radio,
                        note,
                    ]
                )
            )
        self.check = W.Button(description="Check answers", button_style="primary", icon="check")
        self.score = self.live(W.HTML())
        self.check.on_click(lambda _: self.check_answers())
        self.checked = False
        # ipywidgets gives radio labels one fixed line; long options would overlap, so let them wrap
        box = ".toolkit-quiz .widget-radio-box label"
        style = W.HTML(
            f"<style>{box}{{display:flex!important;align-items:flex-start;height:auto!important;"
            "line-height:1.35!important;white-space:normal!important;font-size:14px!important;"
            f"margin:3px 0!important}}{box} input{{order:-1;flex:none;margin:3px 8px 0 0}}</style>"
        )
        self.widget = W.VBox([style] + blocks + [W.HBox([self.check, self.score])])
        self.accessible()  # each radio group is named by its question
        self.refresh()

    def answers(self) -> list:
        return [r.value for r in self.choices]

    def compute(self) -> QuizResult:
        return grade(self.questions, self.answers())

    def draw(self, result: QuizResult) -> None:
        if not self.checked:
            self.score.value = f"<span style='font-size:15px'>{result.answered} of {result.total} answered</span>"
            for note in self.feedback:
                note.value = ""
            return
        self.score.value = (
            f"<span style='font-size:16px'><b>Score: {result.score} of {result.total}</b>"
            f" ({result.answered} answered)</span>"
        )
        for note, verdict, text, q in zip(self.feedback, result.verdicts, result.explanations, self.questions):
            if verdict is None:
                note.value = f"<span style='color:{THEME_INK_MUTED}'>Not answered yet.</span>"
            else:
                colour = TEXT["green"] if verdict else TEXT["vermillion"]
                tint = "#EAF6F1" if verdict else "#FFF1E6"
                mark = "✓ Right." if verdict else f"✗ Not quite; the answer is: {esc(q['options'][q['answer']])}."
                note.value = (
                    f"<div style='font-size:14px;background:{tint};color:{INK};padding:2px 6px'>"
                    f"<b style='color:{colour}'>{mark}</b> {esc(text)}</div>"
                )

    def check_answers(self) -> QuizResult:
        """What the button does: mark every answered question and show the score."""
        self.checked = True
        self.refresh()
        return self.state

    def _changed(self, change=None) -> None:
        # changing an answer after checking hides the old marks until the next check
        self.checked = False
        self.refresh()


def quiz(questions: Sequence[dict] | None = None) -> Quiz:
    """The quiz, ready to show: ``quiz()`` as a cell's last line.

    Notebook 12.
    """
    return Quiz(questions)
