"""The timeline helper of notebook 08 (toolkit/widgets/timeline.py, pack §2.8)."""

import threading
import time

import pytest

import toolkit as T
from toolkit.widgets.timeline import WAIT_LANE, CallClock, Span, TimelinePicture, plot_timeline, total_time


class FakeTime:
    """A clock that moves only when told to, so spans are exact."""

    def __init__(self):
        self.t = 64.0  # a power of two: the sums below stay exact in binary

    def now(self):
        return self.t

    def wait(self, seconds):
        self.t += seconds


def sleeper(fake, seconds, fail=False):
    def look_up(city: str) -> str:
        """Look up a city.

        Args:
            city: the city
        """
        fake.wait(seconds)
        if fail:
            raise T.TransientToolError("busy")
        return city

    return look_up


def test_spans_record_calls_and_waits_exactly():
    fake = FakeTime()
    clock = CallClock(now=fake.now, wait=fake.wait)
    registry = T.ToolRegistry()
    registry.add(sleeper(fake, 0.5), name="a")
    registry.add(sleeper(fake, 0.25, fail=True), name="b")
    clock.wrap(registry)
    registry.run("a", {"city": "Paris"})
    registry.run("b", {"city": "Rome"})
    clock.sleep(0.125)
    assert clock.spans == [
        Span("a", 0.0, 0.5, "ok"),
        Span("b", 0.5, 0.75, "fail"),
        Span(WAIT_LANE, 0.75, 0.875, "wait"),
    ]
    assert clock.waits == [0.125]
    assert total_time(clock.spans) == 0.875
    assert total_time([]) == 0.0


def test_rewrapping_moves_the_recording_to_the_new_clock():
    fake = FakeTime()
    registry = T.ToolRegistry()
    registry.add(sleeper(fake, 1.0), name="a")
    first = CallClock(now=fake.now, wait=fake.wait)
    first.wrap(registry)
    second = CallClock(now=fake.now, wait=fake.wait)
    second.wrap(registry)
    second.wrap(registry)  # twice is harmless
    registry.run("a", {"city": "x"})
    assert first.spans == [] and len(second.spans) == 1


def test_reset_forgets_everything():
    fake = FakeTime()
    clock = CallClock(now=fake.now, wait=fake.wait)
    clock.sleep(0.2)
    fake.wait(5)
    clock.reset()
    assert clock.spans == [] and clock.waits == []
    clock.sleep(0.1)
    assert clock.spans[0].start == 0.0


def test_parallel_calls_overlap_in_a_real_run():
    """Judged from the recorded spans: the three calls meet at a barrier, so in a parallel run
    each starts before any ends, however slowly the machine starts their threads."""
    meet = threading.Barrier(3)
    registry = T.ToolRegistry()
    for name in ("a", "b", "c"):

        def look(city: str) -> str:
            """Look.

            Args:
                city: the city
            """
            meet.wait(timeout=60)  # a guard only: run one by one, the first call would wait here, then fail
            time.sleep(0.1)
            return city

        registry.add(look, name=name)
    clock = CallClock()
    clock.wrap(registry)
    model = T.ScriptedModel(
        [{"tool_calls": [T.call(f"c{i}", n, city="x") for i, n in enumerate("abc")]}, {"content": "done"}]
    )
    T.run_agent(model, registry, "go", parallel=True, call_timeout=None)
    assert [s.kind for s in clock.spans] == ["ok"] * 3, clock.spans
    assert max(s.start for s in clock.spans) < min(s.end for s in clock.spans), clock.spans
    assert total_time(clock.spans) < sum(s.seconds for s in clock.spans)


def test_the_loop_backoff_goes_through_the_clock():
    fake = FakeTime()
    clock = CallClock(now=fake.now, wait=fake.wait)
    registry = T.ToolRegistry()
    registry.add(sleeper(fake, 0.0, fail=True), name="busy")
    clock.wrap(registry)
    model = T.ScriptedModel([{"tool_calls": [T.call("c1", "busy", city="x")]}, {"content": "done"}])
    T.run_agent(model, registry, "go", max_retries=3, sleep=clock.sleep, call_timeout=None)
    assert clock.waits == [0.1, 0.2, 0.4]
    assert [s.kind for s in clock.spans] == ["fail", "wait", "fail", "wait", "fail", "wait", "fail"]


def test_plot_gives_a_png_with_a_stable_text_form():
    pytest.importorskip("matplotlib")
    spans = [Span("a", 0.0, 0.2), Span("b", 0.0, 0.0, "fail"), Span(WAIT_LANE, 0.0, 0.1, "wait")]
    picture = plot_timeline({"one": spans, "two": spans[:1]}, title="demo", note="a note")
    assert isinstance(picture, TimelinePicture)
    assert picture._repr_png_().startswith(b"\x89PNG")
    assert repr(picture) == "<timeline: demo>"


@pytest.mark.parametrize("bad", [{}, [], {"x": [1, 2]}, "spans"])
def test_plot_rejects_what_is_not_spans(bad):
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError, match="Span|dict"):
        plot_timeline(bad)
