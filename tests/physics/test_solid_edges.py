"""The edges of the pool's solid (each wall's top edge, the deck's outer edge) and the folds of
its bed (a ledge's or a pillar's top edge) meet a body's faces, not only its vertices: a plank
leant on the rim rests on the rim's edge, one laid over an edge tips about it, and a crate dropped
on one never lets it cut in. References are closed-form statics and a rigid pivot's equation of
motion, integrated here on their own."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation
from engine.levels import Level, parse_level
from engine.levels.schema import PhysicsSpec, PoolSpec, WaterSpec
from engine.terrain import DECK

SIZE = (2.0, 1.5)
RIM = 0.5
L, T, W = 1.4, 0.04, 0.15            # the plank: length, thickness, width, m

# an edge: (axis across it, sgn, the line's coordinate on that axis); the free side of the edge
# (the pool beside a wall's top edge, the void past the deck's) is where s = sgn (x_ax - at) > 0
EDGES = {
    "wall x=0": (0, 1.0, 0.0),
    "wall z=size": (2, -1.0, SIZE[1]),
    "deck x=-DECK": (0, -1.0, -DECK),
    "deck z=size+DECK": (2, 1.0, SIZE[1] + DECK),
}


def _sim() -> Simulation:
    """A dry pool: contacts alone."""
    return Simulation(Level(seed=1, pool=PoolSpec(size=SIZE, cell=0.05, wall_height=RIM), water=WaterSpec(level=0.0),
                            physics=PhysicsSpec(glass_strength=1e9)))


def _plank(sim: Simulation, edge: str, s: float, y: float, phi: float, mu: float) -> int:
    """A plank whose centre is s across `edge` (to its free side) at height y, its long axis at
    angle phi from the free side's horizontal (phi > 0 rising), lying across the edge."""
    ax, sgn, at = EDGES[edge]
    along = SIZE[1] / 2 if ax == 0 else SIZE[0] / 2
    pos = [0.0, y, 0.0]
    pos[ax] = at + sgn * s
    pos[2 - ax] = along
    us, uy = math.cos(phi), math.sin(phi)
    if ax == 0:        # the long axis is body x; a turn about z takes it to (sgn us, uy, 0)
        a = math.atan2(uy, sgn * us)
        q = (math.cos(a / 2), 0.0, 0.0, math.sin(a / 2))
        size = (L, T, W)
    else:              # the long axis is body z; a turn about x takes it to (0, uy, sgn us)
        a = math.atan2(-uy, sgn * us)
        q = (math.cos(a / 2), math.sin(a / 2), 0.0, 0.0)
        size = (W, T, L)
    return sim.spawn_body("box", 600.0, tuple(pos), orientation=q, size=size, friction=mu)


def _frame(sim: Simulation, e: int) -> tuple[np.ndarray, np.ndarray]:
    """The body's centre and its rotation (columns: its axes in the world)."""
    b = sim.body(e)
    o = np.asarray(b.to_world(np.zeros((1, 3))))[0]
    return o, (np.asarray(b.to_world(np.eye(3))) - o).T


def _cut(sim: Simulation, e: int, edge: str, half: np.ndarray) -> float:
    """How deep the edge's line cuts into the box (half extents `half`) at its deepest: over points
    of the line, the least of h_j - |local_j|; <= 0 where it misses the box."""
    ax, _, at = EDGES[edge]
    o, R = _frame(sim, e)
    w = np.linspace(o[2 - ax] - 1.0, o[2 - ax] + 1.0, 401)
    line = np.zeros((w.size, 3))
    line[:, ax] = at
    line[:, 1] = RIM
    line[:, 2 - ax] = w
    local = (line - o) @ R
    return float(np.min(half - np.abs(local), axis=1).max())


def _in_solid(sim: Simulation, e: int, edge: str) -> float:
    """How deep the plank's body (a grid through its volume) reaches into the solid beside the edge
    (s < 0, y < RIM, out to DECK from the edge): the nearer of its faces there."""
    ax, sgn, at = EDGES[edge]
    o, R = _frame(sim, e)
    g = np.stack(np.meshgrid(np.linspace(-0.5, 0.5, 71), np.linspace(-0.5, 0.5, 3), np.linspace(-0.5, 0.5, 3)),
                 -1).reshape(-1, 3)
    size = np.array((L, T, W) if ax == 0 else (W, T, L))
    v = o + (g * size) @ R.T
    s = sgn * (v[:, ax] - at)
    inside = (s < 0.0) & (s > -DECK) & (v[:, 1] < RIM)
    return float(np.where(inside, np.minimum(-s, RIM - v[:, 1]), 0.0).max())


def _pivot_times(g: float, d: float, length: float, marks: list[float]) -> list[float]:
    """When a plank (length, thickness T) turning from rest about a fixed edge under its bottom
    face, its centre of mass d beyond it, passes each angle of `marks`: theta'' = g (d cos theta -
    T/2 sin theta) / (k^2 + d^2 + T^2/4), k^2 = (length^2 + T^2) / 12, by RK4 in steps of 0.1 ms."""
    k2 = (length * length + T * T) / 12.0

    def acc(th: float) -> float:
        return g * (d * math.cos(th) - T / 2 * math.sin(th)) / (k2 + d * d + T * T / 4)

    out: list[float] = []
    th, om, t, h = 0.0, 0.0, 0.0, 1e-4
    while len(out) < len(marks):
        k1 = (om, acc(th))
        k2_ = (om + h / 2 * k1[1], acc(th + h / 2 * k1[0]))
        k3 = (om + h / 2 * k2_[1], acc(th + h / 2 * k2_[0]))
        k4 = (om + h * k3[1], acc(th + h * k3[0]))
        th += h / 6 * (k1[0] + 2 * k2_[0] + 2 * k3[0] + k4[0])
        om += h / 6 * (k1[1] + 2 * k2_[1] + 2 * k3[1] + k4[1])
        t += h
        if th >= marks[len(out)]:
            out.append(t)
    return out


@pytest.mark.parametrize("edge", ["wall x=0", "wall z=size"])
@pytest.mark.parametrize("theta, mu", [(28.0, 0.5), (35.0, 0.5), (73.0, 0.5), (40.0, 0.8), (42.0, 0.5), (65.0, 0.5),
                                       (55.0, 0.65)])
def test_a_plank_leant_on_the_rim_holds_or_slips_as_ladder_statics_say(edge, theta, mu):
    """A plank (length L, thickness T) stands on the pool's floor and leans on a wall's top edge at
    theta, its bottom face through the edge (h = RIM above its foot, at l_B = h / sin theta along
    it). Moments about the foot give the edge's normal force N_B = m g a / l_B, with a = L/2 cos theta
    - T/2 sin theta the weight's arm; at the point of slipping (foot outwards, the plank sliding
    down the edge) both contacts' friction is mu N: horizontally mu N_A = N_B (sin theta -
    mu cos theta), vertically N_A + N_B (cos theta + mu sin theta) = m g, so N_B sin theta
    (1 + mu^2) / mu = m g. It holds while a sin^2 theta (1 + mu^2) / (h mu) < 1 and slips where that
    exceeds 1. Cases at least 7% either side: it stays within 2 mm for 2 s, or slides more than
    5 cm; either way the edge never cuts into it (3 mm)."""
    th = math.radians(theta)
    ratio = (L / 2 * math.cos(th) - T / 2 * math.sin(th)) * math.sin(th) ** 2 * (1 + mu * mu) / (RIM * mu)
    assert abs(ratio - 1.0) > 0.07
    sim = _sim()
    # the foot's lower corner on the floor at s = h / tan theta; the plank rises towards the wall
    s_a = RIM / math.tan(th)
    c_s = s_a - L / 2 * math.cos(th) + T / 2 * math.sin(th)
    c_y = L / 2 * math.sin(th) + T / 2 * math.cos(th)
    e = _plank(sim, edge, c_s, c_y, math.pi - th, mu)
    p0 = sim.body(e).position.copy()
    worst = 0.0
    for _ in range(round(2.0 / sim.dt)):
        sim.step(1)
        worst = max(worst, _in_solid(sim, e, edge))
    moved = float(np.linalg.norm(sim.body(e).position - p0))
    assert worst < 0.003
    if ratio < 1.0:
        assert moved < 0.002
    else:
        assert moved > 0.05


@pytest.mark.parametrize("edge", list(EDGES))
@pytest.mark.parametrize("d", [0.05, 0.12])
def test_a_plank_overhanging_an_edge_tips_about_it(edge, d):
    """A plank lying level across an edge, its centre of mass d beyond it (over the pool beside a
    wall, over the void past the deck), turns about the edge as about a fixed pivot while friction
    holds it (mu = 2): theta'' = g (d cos theta - T/2 sin theta) / (k^2 + d^2 + T^2/4), k^2 =
    (L^2 + T^2) / 12 (the pivot on its bottom face, T/2 below the centre). The times at which it
    passes 5, 10 and 20 degrees are within 3% (and one step) of that equation's, integrated here
    by RK4; the edge never cuts into it (2 mm). (Held by its vertices on the deck alone it would
    turn about its far end, at theta'' = 3 g / (2 L) at first: 1.9 and 1.4 times as fast.)"""
    sim = _sim()
    g = sim.gravity
    e = _plank(sim, edge, d, RIM + T / 2, 0.0, 2.0)
    ax, sgn, _ = EDGES[edge]

    marks = [math.radians(a) for a in (5.0, 10.0, 20.0)]
    expected = _pivot_times(g, d, L, marks)
    seen: list[float] = []
    worst = 0.0
    long_axis = 0 if ax == 0 else 2
    while len(seen) < len(marks):
        sim.step(1)
        _, R = _frame(sim, e)
        a = R[:, long_axis] * (1.0 if R[ax, long_axis] * sgn > 0 else -1.0)   # towards the free side
        if -a[1] >= math.sin(marks[len(seen)]):
            seen.append(sim.time)
        worst = max(worst, _in_solid(sim, e, edge))
        assert sim.time < 3.0, "the plank never tipped"
    for got, want in zip(seen, expected):
        assert abs(got - want) < 0.03 * want + sim.dt
    assert worst < 0.002


@pytest.mark.parametrize("edge", ["wall x=0", "deck x=-DECK"])
def test_a_crate_dropped_on_an_edge_never_lets_it_cut_in(edge):
    """Crates (0.3 x 0.2 x 0.2 m) dropped at 1 m/s from 0.45 m onto an edge in twelve random
    orientations, up to 10 cm either side of it: the edge's line never cuts into a crate by more
    than 5 mm, whether it lands on a face, an edge or a corner and whichever side it ends."""
    rng = np.random.default_rng(3)
    ax, sgn, at = EDGES[edge]
    half = np.array([0.15, 0.1, 0.1])
    worst = 0.0
    for _ in range(12):
        sim = _sim()
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        pos = [0.0, RIM + 0.45, SIZE[1] / 2]
        pos[ax] = at + rng.uniform(-0.1, 0.1)
        e = sim.spawn_body("crate", 500.0, tuple(pos), orientation=tuple(q), velocity=(0.0, -1.0, 0.0))
        for _ in range(round(2.0 / sim.dt)):
            sim.step(1)
            if float(sim.body(e).position[1]) < -1.0:
                break                                     # fallen clear of the deck's edge
            worst = max(worst, _cut(sim, e, edge, half))
    assert worst < 0.005


@pytest.mark.parametrize("offset", [-0.04, 0.04])
def test_a_bottle_laid_across_the_decks_edge_tips_to_the_side_of_its_centre_of_mass(offset):
    """A bottle laid level across the deck's outer edge at right angles to it, its centre of mass
    `offset` beyond the edge (positive: over the void), rests on the edge alone: the weight's moment
    about it, m g offset, tips it to that side: it stays on the deck (lowest point at the rim) or
    falls past the edge, never cutting into the edge (5 mm)."""
    sim = _sim()
    q = (math.sqrt(0.5), 0.0, 0.0, -math.sqrt(0.5))      # the bottle's axis (body y) along world x
    e = sim.spawn_bottle((-DECK, 1.0, 0.75), orientation=q, fill=0.0)
    b = sim.body(e)
    b.position[0] = -DECK - offset                        # the body's position is its centre of mass
    b.position[1] += RIM + 0.002 - float(b.mesh_world()[0][:, 1].min())
    worst = 0.0
    while sim.time < 1.5 and float(b.position[1]) > RIM - 0.3:
        sim.step(1)
        v = b.mesh_world()[0]
        inside = (v[:, 0] > -DECK) & (v[:, 1] < RIM)
        worst = max(worst, float(np.where(inside, np.minimum(v[:, 0] + DECK, RIM - v[:, 1]), 0.0).max()))
    assert worst < 0.005
    if offset > 0:
        assert float(b.position[1]) < RIM - 0.3 and float(b.position[0]) < -DECK
    else:
        assert float(b.position[0]) > -DECK and float(b.mesh_world()[0][:, 1].min()) == pytest.approx(RIM, abs=0.005)


LEDGE_H = 0.65
PLANK = 1.0          # the plank on the ledge: its length, m


def _ledge_sim(cell: float, side: str) -> Simulation:
    """A dry 3 x 2 m pool with a quay: a ledge 0.6 m wide and LEDGE_H high along `side`."""
    return Simulation(parse_level(f"""
[pool]
size = [3.0, 2.0]
cell = {cell}
wall_height = 1.0
[water]
level = 0.0
[physics]
glass_strength = 1e6
[[obstacle]]
kind = "ledge"
side = "{side}"
width = 0.6
height = {LEDGE_H}
"""))


def _below_bed(sim: Simulation, v: np.ndarray) -> float:
    """How deep the deepest of points v (n, 3) lies inside the bed, bilinear between cell centres
    (the bed the water and the contacts share): its height h less y, times cos of the slope
    (1 / sqrt(1 + h_x^2 + h_z^2)), the depth under the local plane; on a ledge's face, a one-cell
    ramp 13 times steeper than 45 degrees, a vertical depth would count a point 1 mm inside it as
    13 mm."""
    bed = sim.water.bed
    dx = float(sim.level.pool.cell)
    nz, nx = bed.shape
    fx = np.clip(v[:, 0] / dx - 0.5, 0.0, nx - 1.0)
    fz = np.clip(v[:, 2] / dx - 0.5, 0.0, nz - 1.0)
    i0 = np.minimum(fx.astype(int), nx - 2)
    k0 = np.minimum(fz.astype(int), nz - 2)
    tx, tz = fx - i0, fz - k0
    b00, b01, b10, b11 = bed[k0, i0], bed[k0, i0 + 1], bed[k0 + 1, i0], bed[k0 + 1, i0 + 1]
    h = (1 - tz) * ((1 - tx) * b00 + tx * b01) + tz * ((1 - tx) * b10 + tx * b11)
    hx = ((1 - tz) * (b01 - b00) + tz * (b11 - b10)) / dx
    hz = ((1 - tx) * (b10 - b00) + tx * (b11 - b01)) / dx
    return float(((h - v[:, 1]) / np.sqrt(1.0 + hx * hx + hz * hz)).max())


@pytest.mark.parametrize("cell", [0.05, 0.025])
@pytest.mark.parametrize("side", ["z_max", "x_min"])
@pytest.mark.parametrize("d", [0.05, 0.12])
def test_a_plank_overhanging_a_ledge_tips_about_its_top_edge(cell, side, d):
    """The bed between cell centres is bilinear, so a ledge's top ends at its last row of cell
    centres, where the bed folds down to the floor. A plank lying on the ledge across that fold, its
    centre of mass d beyond it, turns about it as about a fixed pivot (mu = 2; the equation of
    test_a_plank_overhanging_an_edge_tips_about_it): it passes 5, 10 and 20 degrees within 3% and
    one step, at two resolutions and along x and z, and never sinks into the bed (5 mm: the ledge's
    face is a one-cell ramp it may lean on). (Held by its vertices alone it turned about its far
    end, cut 20 cm into the ledge and came to rest inside it.)"""
    sim = _ledge_sim(cell, side)
    g = sim.gravity
    # the fold: the first cell centre inside the ledge, from the pool's side
    if side == "z_max":
        fold = (round((2.0 - 0.6) / cell) + 0.5) * cell
        pos, size, ax, sgn = (1.5, LEDGE_H + T / 2, fold - d), (W, T, PLANK), 2, -1.0
    else:
        fold = (round(0.6 / cell) - 0.5) * cell
        pos, size, ax, sgn = (fold + d, LEDGE_H + T / 2, 1.0), (PLANK, T, W), 0, 1.0
    e = sim.spawn_body("box", 600.0, pos, size=size, friction=2.0)
    marks = [math.radians(a) for a in (5.0, 10.0, 20.0)]
    expected = _pivot_times(g, d, PLANK, marks)
    seen: list[float] = []
    worst = 0.0
    grid = np.stack(np.meshgrid(*[np.linspace(-0.5, 0.5, n) for n in (3, 3, 3)]), -1).reshape(-1, 3)
    line = np.zeros((61, 3))
    line[:, ax] = np.linspace(-0.5, 0.5, 61)
    while len(seen) < len(marks):
        sim.step(1)
        o, R = _frame(sim, e)
        a = R[:, ax] * (1.0 if R[ax, ax] * sgn > 0 else -1.0)         # along the plank, to the free side
        if -a[1] >= math.sin(marks[len(seen)]):
            seen.append(sim.time)
        pts = np.concatenate([grid, line + np.array([0.0, -0.5, 0.0]), line + np.array([0.0, 0.5, 0.0])])
        worst = max(worst, _below_bed(sim, o + (pts * np.array(size)) @ R.T))
        assert sim.time < 3.0, "the plank never tipped"
    for got, want in zip(seen, expected):
        assert abs(got - want) < 0.03 * want + sim.dt
    assert worst < 0.005


def test_crates_dropped_on_a_ledges_edge_never_sink_into_it():
    """Crates dropped at 1 m/s from 0.45 m above a ledge's top edge in twelve random orientations,
    up to 10 cm either side of it: no point of a crate's box ever lies more than 5 mm under the
    bed (bilinear between cell centres), whether it ends on the ledge or beside it."""
    rng = np.random.default_rng(5)
    worst = 0.0
    grid = np.stack(np.meshgrid(*[np.linspace(-0.5, 0.5, 7)] * 3), -1).reshape(-1, 3) * np.array([0.3, 0.2, 0.2])
    for _ in range(12):
        sim = _ledge_sim(0.05, "z_max")
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        e = sim.spawn_body("crate", 500.0, (1.5, LEDGE_H + 0.45, 1.425 + rng.uniform(-0.1, 0.1)),
                           orientation=tuple(q), velocity=(0.0, -1.0, 0.0))
        for _ in range(round(1.5 / sim.dt)):
            sim.step(1)
            o, R = _frame(sim, e)
            worst = max(worst, _below_bed(sim, o + grid @ R.T))
    assert worst < 0.005


@pytest.mark.parametrize("along", [0.0, 0.0125, 0.025])
@pytest.mark.parametrize("offset", [-0.03, 0.03])
def test_a_bottle_laid_across_a_ledges_edge_rests_on_it_or_tips_off(along, offset):
    """An empty bottle laid level across a ledge's fold at right angles to it, `along` from a
    midpoint between two of the fold's cell centres (0: between them, 2.5 cm: on one), its centre
    of mass `offset` beyond the fold (positive: over the pool): the weight's moment about the fold,
    m g offset, tips it that way. It ends on the ledge (lowest point at its top) or on the pool's
    floor, and its mesh never sinks into the bed by more than 2 mm (with the fold's cell centres
    alone it sank 6-8 mm between them)."""
    sim = _ledge_sim(0.05, "z_max")
    fold = 1.425
    q = (math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0)      # the bottle's axis (body y) along world z
    e = sim.spawn_bottle((1.5 + along, 1.0, fold - offset), orientation=q, fill=0.0)
    b = sim.body(e)
    b.position[1] += LEDGE_H + 0.002 - float(b.mesh_world()[0][:, 1].min())
    worst = 0.0
    for _ in range(round(2.0 / sim.dt)):
        sim.step(1)
        worst = max(worst, _below_bed(sim, np.asarray(b.mesh_world()[0]).reshape(-1, 3)))
    assert worst < 0.002
    low = float(b.mesh_world()[0][:, 1].min())
    if offset < 0:
        assert float(b.position[2]) > fold and low == pytest.approx(LEDGE_H, abs=0.003)
    else:
        assert float(b.position[2]) < fold and low == pytest.approx(0.0, abs=0.003)
