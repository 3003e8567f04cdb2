"""Landing on loose sand (`[look] bed = "sand"`): no rebound to speak of, and glass stays whole.

Stopping: a body landing on loose sand digs a crater of depth d (below) and stops in it without
rebounding (Katsuragi & Durian 2007), most of the way within 3 d / v (Ambroso, Kamien & Durian
2005); off tiles it rises to e^2 h0 (Newton's law of restitution, as in test_rigid_bounce.py).

Breaking: a glass bottle breaks under the peak force of an impact (Mould 1952). On hard ground
the pulse lasts T_HARD = 1 ms, and the schema's glass_strength (1.4 N s) is the glass impulse of
such a pulse. On sand the body digs a crater: penetration depth (Uehara, Ambroso, Ojha & Durian
2003, PRL 90, 194301)
    d = (0.14 / mu) (rho_b / rho_g)^(1/2) D^(2/3) H^(1/3),  H = v^2 / (2 g),
with mu = 0.6 (dry sand's angle of repose, 31 degrees), rho_g = 1600 kg/m^3 (bulk), rho_b and
D the bottle's density and volume-equivalent diameter, over a stop of t = 3 d / v (Ambroso,
Kamien & Durian 2005, PRE 72, 041305). The glass impulse m_glass v (no rebound) then peaks
T_HARD / t as high as on hard ground: the bottle breaks when m_glass v T_HARD / t > strength. The
break speed is solved here from those formulas alone, and a bottle driven into sand at 0.85x
and 1.15x of it must stay whole and break.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import Simulation
from engine import events as ev
from engine.levels import parse_level
from engine.levels.schema import PhysicsSpec

T_HARD = 1e-3           # s
MU, RHO_SAND, G = 0.6, 1600.0, 9.81


def _level(bed: str, extra: str = "", restitution: float = 0.35, strength: float | None = None) -> Simulation:
    glass = "" if strength is None else f"glass_strength = {strength}\n"
    sim = Simulation(parse_level(
        f'[pool]\nsize = [2.0, 1.0]\ncell = 0.05\nwall_height = 0.6\n[water]\nlevel = 0.0\n'
        f'[physics]\nrestitution = {restitution}\n{glass}[look]\nbed = "{bed}"\n{extra}'))
    sim.remove_system("CoupleWater")
    return sim


def _drop_bottle(sim: Simulation, x: float, base_height: float, speed: float = 0.0) -> bool:
    """An empty sealed bottle standing upright, its base `base_height` above the floor under it,
    sent straight down at `speed`; whether it shattered within 1 s."""
    probe = sim.spawn_bottle((x, 1.0, 0.5))
    below = 1.0 - float(sim.body(probe).mesh_world()[0][:, 1].min())     # centre above the base
    sim.remove_body(probe)
    floor = float(sim.water.bed[10, int(x / sim.water.dx)])
    sim.spawn_bottle((x, floor + base_height + below, 0.5), (0.0, -speed, 0.0))
    broke: list[ev.Shattered] = []
    sim.on(ev.Shattered, broke.append)
    sim.step(int(1.0 / sim.dt))
    return bool(broke)


@pytest.mark.parametrize("drop", [0.5, 1.5, 3.0])
def test_a_bottle_dropped_on_sand_stays_whole_where_tiles_break_it(drop):
    """The same drop breaks it on tiles (above 0.37 m, schema.py) and not on sand."""
    assert _drop_bottle(_level("tile"), 1.0, drop)
    assert not _drop_bottle(_level("sand"), 1.0, drop)


def test_an_obstacle_standing_on_sand_is_hard():
    """A concrete block on the beach is no sand: a bottle dropped 1.5 m onto its top breaks."""
    sim = _level("sand", '[[obstacle]]\nkind = "box"\ncenter = [0.5, 0.5]\nsize = [0.6, 0.6]\nheight = 0.2\n')
    assert _drop_bottle(sim, 0.5, 1.5)
    assert not _drop_bottle(sim, 1.6, 1.5)          # beside it, on the sand


def test_the_deck_round_a_sandy_pool_is_hard():
    """The deck (the walls' material, tiles here) is no sand: a bottle dropped 1.5 m onto it
    beside the sandy pool breaks, as on tiles."""
    sim = _level("sand")
    rim = float(sim.level.pool.wall_height)
    probe = sim.spawn_bottle((1.0, 1.0, 0.5))
    below = 1.0 - float(sim.body(probe).mesh_world()[0][:, 1].min())
    sim.remove_body(probe)
    sim.spawn_bottle((2.4, rim + 1.5 + below, 0.5))
    broke: list[ev.Shattered] = []
    sim.on(ev.Shattered, broke.append)
    sim.step(int(1.0 / sim.dt))
    assert broke


def _break_speed(mass: float, volume: float, strength: float) -> float:
    """The speed at which sand breaks an empty bottle (m_glass = m), by bisection."""
    diameter = (6.0 * volume / math.pi) ** (1 / 3)

    def peak_impulse(v: float) -> float:
        depth = 0.14 / MU * math.sqrt(mass / volume / RHO_SAND) * diameter ** (2 / 3) * (v * v / (2 * G)) ** (1 / 3)
        return mass * v * min(1.0, T_HARD / (3 * depth / v))

    lo, hi = 1.0, 200.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if peak_impulse(mid) < strength else (lo, mid)
    return lo


@pytest.mark.parametrize("strength", [None, 0.5, 2.0])
def test_sand_breaks_glass_at_the_granular_impact_speed(strength):
    """Break speed from Uehara et al.'s crater depth and the 3 d / v stop: whole at 0.85x, broken
    at 1.15x (a bottle driven into the sand from 2 cm above it, upright), for the schema's glass
    and for weaker (0.5 N s: the stop, 10-14 ms, spans two steps) and stronger glass."""
    probe = _level("sand")
    b = probe.body(probe.spawn_bottle((1.0, 0.5, 0.5)))
    s = PhysicsSpec().glass_strength if strength is None else strength
    v_break = _break_speed(b.mass, b.volume, s)
    assert 10.0 < v_break < 60.0                  # far beyond a throw (tiles: 2.7 m/s)
    for factor, breaks in ((0.85, False), (1.15, True)):
        v = factor * v_break
        v0 = math.sqrt(v * v - 2 * G * 0.02)       # the 2 cm of fall adds the rest
        got = _drop_bottle(_level("sand", strength=strength), 1.0, 0.02, v0)
        assert got is breaks, f"{factor} x {v_break:.1f} m/s"


@pytest.mark.parametrize("e", [0.5, 0.95])
def test_sand_stops_a_body_in_its_crater(e):
    """A sphere (radius 8 cm, density 1000) dropped from h0 = 0.5 m: off tiles it rises to e^2 h0
    (within 5%); on sand it digs a crater d deep (Uehara's law, within 15%), is below a tenth of
    its impact speed v0 = sqrt(2 g h0) by 3 d / v0 after touching, and never rises again."""
    h0, r, rho = 0.5, 0.08, 1000.0
    volume = 4.0 / 3.0 * math.pi * r ** 3
    v0 = math.sqrt(2 * G * h0)
    d = 0.14 / MU * math.sqrt(rho / RHO_SAND) * (2 * r) ** (2 / 3) * h0 ** (1 / 3)
    for bed in ("tile", "sand"):
        sim = _level(bed, restitution=e)
        body = sim.body(sim.spawn_body("sphere", rho, (1.0, h0 + r, 0.5), radius=r))
        assert body.mass == pytest.approx(rho * volume, rel=1e-6)
        apex, lowest, touched, slow_at = 0.0, 1.0, -1.0, -1.0
        for _ in range(int(2.0 / sim.dt)):
            sim.step(1)
            bottom = float(body.position[1]) - r
            vy = float(body.velocity[1])
            lowest = min(lowest, bottom)
            if touched < 0.0 and bottom < 0.01:
                touched = sim.time
            if touched >= 0.0 and slow_at < 0.0 and abs(vy) < 0.1 * v0:
                slow_at = sim.time - touched
            if vy > 0.0:
                apex = max(apex, bottom)
        if bed == "tile":
            assert apex == pytest.approx(e * e * h0, rel=0.05)
        else:
            assert -lowest == pytest.approx(d, rel=0.15)
            assert 0.0 <= slow_at <= 3 * d / v0 + sim.dt
            assert apex < 0.002                   # m: no rebound (the push back to the surface aside)


def _sloped_sand(sim: Simulation, theta: float, x: float, r: float) -> tuple[tuple[float, ...], np.ndarray]:
    """Tilt the bed to rise along x at theta; return (the centre of a round body of radius r
    resting on it above x, 0.1 mm clear; unit vector down the slope)."""
    nx = sim.water.bed.shape[1]
    sim.water.bed[:] = math.tan(theta) * (np.arange(nx) + 0.5) * sim.water.dx
    up = np.array([-math.sin(theta), math.cos(theta), 0.0])
    down = np.array([-math.cos(theta), -math.sin(theta), 0.0])
    return tuple(np.array([x, math.tan(theta) * x, 0.5]) + (r + 1e-4) * up), down


def _lying_cylinder(sim: Simulation, theta: float, x: float, r: float, rho: float = 2500.0):
    """A cylinder of density rho (glass by default; radius r, 0.2 m long) lying across a bed that
    rises along x at theta; (its body, the unit vector down the slope)."""
    centre, down = _sloped_sand(sim, theta, x, r)
    across = (math.cos(math.pi / 4), math.sin(math.pi / 4), 0.0, 0.0)
    return sim.body(sim.spawn_body("cylinder", rho, centre, orientation=across, radius=r,
                                   size=(0.0, 0.2, 0.0))), down


def _acceleration_down(sim: Simulation, b, down: np.ndarray) -> float:
    """Mean acceleration down the slope over steps 12-60 after release, m/s^2."""
    sim.step(12)
    v1 = float(b.velocity @ down)
    sim.step(48)
    return (float(b.velocity @ down) - v1) / (48 * sim.dt)


K32 = (1.0 + 2.0 * math.cos(math.pi / 32) ** 2) / 6.0   # I / (m R^2) of the 32-gon prism ("cylinder")
# Rolling resistance of loose dry sand (Bekker): the roller sinks z0 until p = k z carries its weight
# W on the front half of its contact, and compacts a rut z0 deep as it rolls, C_rr W = the rut's
# work per unit length. k: Bekker's dry sand, k_phi = 1528 kN/m^3.1 with n = 1.1 (Wong, Theory of
# Ground Vehicles, Table 2.3), as k_phi z^0.1 at a few millimetres of sinkage.
K_SAND = 1.528e6 * 0.003 ** 0.1     # N/m^3, 0.85e6


def _c_rr_cylinder(weight: float, r: float, length: float) -> float:
    """W = int_0^x0 k L z dx over the front half (z = z0 - x^2 / 2R, x0 = sqrt(2 R z0)) = (2/3) k L
    z0 sqrt(2 R z0); rut work k L z0^2 / 2 per unit length."""
    z0 = (3.0 * weight / (2.0 * K_SAND * length * math.sqrt(2.0 * r))) ** (2.0 / 3.0)
    return (K_SAND * length * z0 ** 2 / 2.0) / weight


def _c_rr_ball(weight: float, r: float) -> float:
    """W = k int over the front half disc of (z0 - rho^2 / 2R) = pi k R z0^2 / 2; rut work
    int k z(y)^2 / 2 dy across it = (8/15) k z0^2 sqrt(2 R z0) per unit length."""
    z0 = math.sqrt(2.0 * weight / (math.pi * K_SAND * r))
    return (8.0 / 15.0 * K_SAND * z0 ** 2 * math.sqrt(2.0 * r * z0)) / weight


@pytest.mark.parametrize("theta_deg, bed, rho", [(4.0, "tile", 2500.0), (4.0, "sand", 2500.0), (12.0, "sand", 2500.0),
                                                 (20.0, "sand", 2500.0), (30.0, "sand", 2500.0), (8.0, "sand", 300.0),
                                                 (20.0, "sand", 300.0), (30.0, "sand", 7800.0)])
def test_a_cylinder_rolls_down_tiles_and_sand_against_sand_rolling_resistance(theta_deg, bed, rho):
    """Lying across a slope a cylinder rolls at a = g (sin - C_rr cos) / (1 + k) (torque balance about
    the contact with rolling resistance C_rr N R; C_rr = 0 on tiles, Bekker's on sand: 0.243 for
    glass, 0.12 at density 300, 0.36 for steel), k the 32-gon prism's (1 + 2 cos^2(pi/32)) / 6;
    where tan theta < C_rr sand holds it (under 1 cm/s after 2 s). Acceleration within 5%."""
    theta = math.radians(theta_deg)
    sim = _level(bed, restitution=0.0)
    sim.get_system("IntegrateBodies").sleep_after = math.inf
    b, down = _lying_cylinder(sim, theta, 1.6, 0.04, rho)
    c_rr = _c_rr_cylinder(b.mass * G, 0.04, 0.2) if bed == "sand" else 0.0
    if math.tan(theta) < c_rr:
        sim.step(240)
        assert float(np.linalg.norm(b.velocity)) < 0.01
        return
    want = G * (math.sin(theta) - c_rr * math.cos(theta)) / (1 + K32)
    assert _acceleration_down(sim, b, down) == pytest.approx(want, rel=0.05)


@pytest.mark.parametrize("rho", [2500.0, 500.0])
def test_a_cylinder_rolling_on_level_sand_slows_at_c_rr_g_over_one_plus_k(rho):
    """Set rolling at 1 m/s on level sand, it decelerates at C_rr g / (1 + k) (2.0 m/s^2 for glass,
    1.2 at density 500) and stops after v^2 (1 + k) / (2 C_rr g); within 5%."""
    sim = _level("sand", restitution=0.0)
    sim.get_system("IntegrateBodies").sleep_after = math.inf
    b, _ = _lying_cylinder(sim, 0.0, 0.3, 0.04, rho)
    sim.step(2)
    b.velocity[:] = (1.0, 0.0, 0.0)
    b.angular_velocity[:] = (0.0, 0.0, -1.0 / 0.04)
    x0 = float(b.position[0])
    sim.step(24)
    v1 = float(b.velocity[0])
    sim.step(24)
    v2 = float(b.velocity[0])
    want = _c_rr_cylinder(b.mass * G, 0.04, 0.2) * G / (1 + K32)
    assert (v1 - v2) / (24 * sim.dt) == pytest.approx(want, rel=0.05)
    sim.step(240)
    assert float(b.position[0]) - x0 == pytest.approx(1.0 / (2 * want), rel=0.05)


@pytest.mark.parametrize("theta_deg, rho, r", [(20.0, 2600.0, 0.06), (7.0, 2600.0, 0.06), (25.0, 7800.0, 0.04),
                                               (10.0, 300.0, 0.1)])
def test_a_ball_rolls_down_sand_against_its_rolling_resistance(theta_deg, rho, r):
    """A ball (k = 2/5) on a slope of sand: a = g (sin - C_rr cos) / (1 + k), within 5%, with
    Bekker's C_rr for its weight (0.26 for the 2.35 kg stone ball, which rests on the beach's 7
    degrees; 0.15 for a 10 cm ball of density 300); held (under 1 cm/s after 2 s) where
    tan theta < C_rr."""
    theta = math.radians(theta_deg)
    sim = _level("sand", restitution=0.0)
    sim.get_system("IntegrateBodies").sleep_after = math.inf
    centre, down = _sloped_sand(sim, theta, 1.6, r)
    b = sim.body(sim.spawn_body("sphere", rho, centre, radius=r))
    c_rr = _c_rr_ball(b.mass * G, r)
    if math.tan(theta) < c_rr:
        sim.step(240)
        assert float(np.linalg.norm(b.velocity)) < 0.01
        return
    want = G * (math.sin(theta) - c_rr * math.cos(theta)) / (1 + 0.4)
    assert _acceleration_down(sim, b, down) == pytest.approx(want, rel=0.05)


@pytest.mark.parametrize("rho, r, spin", [(2600.0, 0.06, 50.0), (7800.0, 0.04, 60.0), (1000.0, 0.1, 20.0),
                                          (300.0, 0.1, 40.0)])
def test_a_ball_spinning_in_its_pit_stops_at_the_torsional_friction_rate(rho, r, spin):
    """A ball at rest on level sand sinks z0 under the pressure k (z0 - rho^2 / D) over its cap of
    radius a = sqrt(D z0), so W = (pi / 2) k D z0^2. Spun about the vertical it turns against the
    sand's friction over that cap, tau = mu int p rho dA = (4 pi / 15) mu k a^3 z0 = (8/15) mu W a,
    and slows at tau / I (I = (2/5) m r^2: 83 rad/s^2 for the stone ball). Rate within 5%; at rest
    (under 0.1 rad/s) 0.1 s after w0 I / tau."""
    sim = _level("sand", restitution=0.0)
    sim.get_system("IntegrateBodies").sleep_after = math.inf
    b = sim.body(sim.spawn_body("sphere", rho, (1.0, r, 0.5), radius=r))
    sim.step(24)
    weight = b.mass * G
    z0 = math.sqrt(2.0 * weight / (math.pi * K_SAND * 2.0 * r))
    tau = 8.0 / 15.0 * MU * weight * math.sqrt(2.0 * r * z0)
    want = tau / (0.4 * b.mass * r * r)
    b.angular_velocity[:] = (0.0, spin, 0.0)
    sim.step(6)
    w1 = float(b.angular_velocity[1])
    sim.step(12)
    w2 = float(b.angular_velocity[1])
    assert (w1 - w2) / (12 * sim.dt) == pytest.approx(want, rel=0.05)
    sim.step(round((spin / want + 0.1) / sim.dt) - 18)
    assert float(np.linalg.norm(b.angular_velocity)) < 0.1


@pytest.mark.parametrize("rho, speed, deg", [(2600.0, 7.0, 45.0), (7800.0, 12.0, 30.0), (1000.0, 3.0, 60.0),
                                             (2600.0, 12.0, 20.0)])
def test_a_ball_thrown_into_sand_at_a_slant_stops_in_its_crater(rho, speed, deg):
    """A ball (radius 6 cm) thrown into a deep bed of sand at `speed`, `deg` below the horizontal.
    The crater's drag acts along the motion (Katsuragi & Durian 2007) through the ball's centre (the
    grains press along the sphere's normals), so the ball digs in along its line of flight: to
    Uehara's depth for the normal speed, d_n = (0.14 / mu) (rho_b / rho_g)^(1/2) D^(2/3) H^(1/3),
    H = (v sin theta)^2 / (2 g), within 15%, at most d_n / tan theta further on (Coulomb friction
    can only shorten the path; 5% and 2 mm of slack), and it stays there: no roll onwards and no
    rise above the surface."""
    theta, r, base = math.radians(deg), 0.06, 0.3
    sim = _level("sand", restitution=0.5)
    sim.water.bed[:] = base                         # 0.3 m of sand: the crater never meets the floor
    v = (speed * math.cos(theta), -speed * math.sin(theta), 0.0)
    b = sim.body(sim.spawn_body("sphere", rho, (0.3, base + r + 5e-4, 0.5), v, radius=r))
    d_n = 0.14 / MU * math.sqrt(rho / RHO_SAND) * (2 * r) ** (2 / 3) * ((v[1] ** 2) / (2 * G)) ** (1 / 3)
    x0 = float(b.position[0])
    lowest, apex = 0.0, -1.0
    for i in range(int(3.0 / sim.dt)):
        sim.step(1)
        bottom = float(b.position[1]) - r - base
        lowest = min(lowest, bottom)
        if i > int(0.2 / sim.dt):
            apex = max(apex, bottom)
    assert -lowest == pytest.approx(d_n, rel=0.15)
    assert float(b.position[0]) - x0 <= 1.05 * d_n / math.tan(theta) + 0.002
    assert float(np.linalg.norm(b.velocity)) < 0.01
    assert apex < 0.002


def test_bottles_thrown_onto_the_beach_come_to_rest_where_they_land():
    """Game-like lobs (power 0.1, the game's end-over-end spin) of empty sealed bottles from the
    beach camera's hand onto its dry sand: each whole bottle digs its crater, settles and stays,
    moving under 5 mm from 1.5 s to 4.5 s after the throw and asleep by then. (A body resting in
    its crater touches the sand at both ends; every touching contact is kept, not only those
    within 3 mm of the deepest, or it rocks end to end and digs itself in.)"""
    from engine import load_level
    from game import aim
    from game.throwing import spin_for
    level = load_level("beach")
    hand = np.array([0.914, 1.297, 2.774])
    for x, z in ((3.6, 0.6), (3.9, 0.6), (3.9, 1.2), (4.2, 0.6), (4.2, 1.8), (4.5, 1.2)):
        sim = Simulation(level)
        target = np.array([x, 0.45 * (x - 1.5) / 3.5, z])
        v = aim.solve(hand, target, sim.gravity, 0.1)
        broke: list[ev.Shattered] = []
        sim.on(ev.Shattered, broke.append)
        b = sim.body(sim.spawn_bottle(tuple(hand), tuple(v), tuple(spin_for(v, 0.1))))
        sim.step(int(1.5 / sim.dt))
        if broke:
            continue
        p1 = b.position.copy()
        sim.step(int(3.0 / sim.dt))
        assert float(np.linalg.norm(b.position - p1)) < 0.005, (x, z)
        assert float(np.linalg.norm(b.velocity)) < 0.01, (x, z)
