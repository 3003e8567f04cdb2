"""The water bench's host-steal figure: parsed from /proc/stat's first line, as a share of ticks."""
import sys

from engine.bench.water import host_cpu_ticks, steal_percent


def _stat(tmp_path, line):
    path = tmp_path / "stat"
    path.write_text(line + "\ncpu0 1 2 3 4 5 6 7 8 0 0\n")
    return str(path)


def test_ticks_sum_the_eight_time_fields_and_pick_steal(tmp_path):
    # user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user)
    assert host_cpu_ticks(_stat(tmp_path, "cpu  100 0 20 870 3 0 2 5 40 0")) == (1000, 5)


def test_steal_percent_is_the_stolen_share_of_the_ticks_between_two_readings():
    assert steal_percent((1000, 5), (1400, 25)) == 5.0
    assert steal_percent((1000, 5), (1400, 5)) == 0.0


def test_no_figure_without_a_readable_stat_file_or_without_elapsed_ticks(tmp_path):
    assert host_cpu_ticks(str(tmp_path / "missing")) is None
    assert host_cpu_ticks(_stat(tmp_path, "intr 1 2 3")) is None
    assert steal_percent(None, (10, 1)) is None
    assert steal_percent((10, 1), (10, 1)) is None


def test_this_machine_reads_when_it_is_linux():
    ticks = host_cpu_ticks()
    if sys.platform.startswith("linux"):
        assert ticks is not None
        total, steal = ticks
        assert 0 <= steal <= total
