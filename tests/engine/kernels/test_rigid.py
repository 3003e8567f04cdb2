"""Rigid-body and contact kernels against plain numpy references."""
from __future__ import annotations

import numpy as np
import pytest

from engine.kernels import contacts, records, rigid


def _axis_angle(axis, ang):
    """Rodrigues' rotation matrix (reference)."""
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(ang) * K + (1 - np.cos(ang)) * K @ K


def test_quaternion_to_matrix_matches_rodrigues():
    rng = np.random.default_rng(0)
    for _ in range(20):
        axis, ang = rng.normal(size=3), rng.uniform(-3, 3)
        k = axis / np.linalg.norm(axis)
        q = np.r_[np.cos(ang / 2), np.sin(ang / 2) * k]
        assert np.allclose(rigid.quat_to_matrix(q), _axis_angle(axis, ang), atol=1e-14)


def test_bed_height_is_bilinear_between_cell_centres():
    rng = np.random.default_rng(1)
    bed = rng.uniform(0, 0.3, (6, 8))
    dx = 0.1
    for _ in range(50):
        x, z = rng.uniform(0.05, 0.75), rng.uniform(0.05, 0.55)
        fx, fz = x / dx - 0.5, z / dx - 0.5
        i, k = int(fx), int(fz)
        tx, tz = fx - i, fz - k
        ref = (1 - tz) * ((1 - tx) * bed[k, i] + tx * bed[k, i + 1]) + tz * ((1 - tx) * bed[k + 1, i] + tx * bed[k + 1, i + 1])
        h, gx, gz = contacts.bed_height(bed, dx, x, z)
        assert h == pytest.approx(ref, abs=1e-14)
        e = 1e-6
        assert gx == pytest.approx((contacts.bed_height(bed, dx, x + e, z)[0] - contacts.bed_height(bed, dx, x - e, z)[0]) / (2 * e), rel=1e-5)


def _settings(iterations):
    return records.settings(gravity=9.81, slop=0.002, penetration_slop=0.001, beta=0.2, max_push=1.0,
                            bounce_speed=0.25, iterations=iterations, max_iterations=iterations, settled=1e-3,
                            push_iterations=iterations, bounce_iterations=0, keep_static=8, keep_pair=6,
                            keep_band=0.003, fast_margin=0.01, sleep_speed=0.03, sleep_after=0.3)


def _one_contact(n_bodies, a, b, point, normal, d, pos, vel, angvel, inv_mass, inv_iw, e=0.5, mu=0.0, iterations=1):
    con = records.contact_buffer(1, contacts.ROW)
    con.body_a[0] = a; con.body_b[0] = b
    con.point[0] = point; con.normal[0] = normal; con.separation[0] = d
    bodies = records.body_arrays(n_bodies, pos=pos, vel=vel, angvel=angvel, inv_mass=inv_mass,
                                 restitution=np.full(n_bodies, e), friction=np.full(n_bodies, mu))
    # no kick this step: the velocities before it are the velocities now
    motion = records.motion_buffer(n_bodies)._replace(inv_iw=inv_iw, inv_mass_eff=inv_mass, vel0=vel.copy(),
                                                      angvel0=angvel.copy())
    motion.toi[:] = -1.0
    contacts.solve(1, con, bodies, motion, _settings(iterations), records.no_warm_start(), 1 / 120)
    return con.jn[0], motion.toi


def test_single_contact_impulse_is_the_seeds_eq_11_in_3d():
    # body a hits static ground at an off-centre point: j = -(1+e) v_n / (1/m + (r x n) I^-1 (r x n))
    rng = np.random.default_rng(2)
    I = np.diag([0.02, 0.05, 0.03])
    Rm = _axis_angle([1, 2, 3], 0.4)
    inv_iw = (Rm @ np.linalg.inv(I) @ Rm.T)[None]
    pos = np.array([[0.0, 0.1, 0.0]]); vel = np.array([[0.3, -2.0, 0.1]]); w = np.array([[1.0, -0.5, 2.0]])
    point = np.array([0.05, 0.0, -0.02]); n = np.array([0.0, 1.0, 0.0])
    m = 1.5
    r = point - pos[0]
    vn = (vel[0] + np.cross(w[0], r)) @ n
    e = 0.5
    j_ref = -(1 + e) * vn / (1 / m + np.cross(r, n) @ inv_iw[0] @ np.cross(r, n))
    v_ref = vel[0] + j_ref * n / m
    w_ref = w[0] + inv_iw[0] @ np.cross(r, j_ref * n)
    j, toi = _one_contact(1, 0, -1, point, n, 0.0, pos, vel, w, np.array([1 / m]), inv_iw, e=e)
    assert j == pytest.approx(j_ref, rel=1e-12)
    assert np.allclose(vel[0], v_ref, atol=1e-12) and np.allclose(w[0], w_ref, atol=1e-12)
    assert toi[0] == 0.0
    assert (vel[0] + np.cross(w[0], r)) @ n == pytest.approx(-e * vn, rel=1e-12)   # restitution
    del rng


def test_two_body_impulse_conserves_momentum_and_matches_eq_11():
    pos = np.array([[0.0, 0.0, 0.0], [0.25, 0.05, 0.0]])
    vel = np.array([[2.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]); w = np.zeros((2, 3))
    ma, mb = 2.0, 0.5
    Ia, Ib = np.diag([0.01, 0.02, 0.02]), np.diag([0.002, 0.002, 0.003])
    inv_iw = np.array([np.linalg.inv(Ia), np.linalg.inv(Ib)])
    point = np.array([0.12, 0.02, 0.0]); n = np.array([-1.0, 0.0, 0.0])       # from b to a
    ra, rb = point - pos[0], point - pos[1]
    vrel = vel[0] - vel[1]
    e = 0.3
    k = 1 / ma + 1 / mb + np.cross(ra, n) @ inv_iw[0] @ np.cross(ra, n) + np.cross(rb, n) @ inv_iw[1] @ np.cross(rb, n)
    j_ref = -(1 + e) * (vrel @ n) / k
    p0 = ma * vel[0] + mb * vel[1]
    L0 = ma * np.cross(pos[0], vel[0]) + mb * np.cross(pos[1], vel[1])
    j, _ = _one_contact(2, 0, 1, point, n, 0.0, pos, vel, w, np.array([1 / ma, 1 / mb]), inv_iw, e=e)
    assert j == pytest.approx(j_ref, rel=1e-12)
    assert np.allclose(ma * vel[0] + mb * vel[1], p0, atol=1e-12)
    L1 = ma * np.cross(pos[0], vel[0]) + mb * np.cross(pos[1], vel[1]) + Ia @ w[0] + Ib @ w[1]
    assert np.allclose(L1, L0, atol=1e-12)          # angular momentum about the origin too


def test_a_gap_closes_but_is_never_crossed():
    pos = np.array([[0.0, 0.1, 0.0]]); vel = np.array([[0.0, -0.2, 0.0]]); w = np.zeros((1, 3))
    inv_iw = np.linalg.inv(np.eye(3) * 0.01)[None]
    # 1 mm gap, slow approach: the contact lets it close exactly the gap in one step. The body moves
    # dt (v_pre + v) / 2 (trapezoid, rigid.drift), so v = -2 d / dt - v_pre lands it on the surface
    v_pre = vel[0, 1]
    _one_contact(1, 0, -1, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], 0.001, pos, vel, w, np.array([1.0]), inv_iw, iterations=4)
    assert vel[0, 1] == pytest.approx(-2 * 0.001 * 120 - v_pre, rel=1e-12)
    assert (v_pre + vel[0, 1]) / 2 / 120 == pytest.approx(-0.001, rel=1e-12)
    # a gap this step's motion cannot close: speculative bound v >= -d / dt, here inactive
    vel[0, 1] = -0.05
    _one_contact(1, 0, -1, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0], 0.01, pos, vel, w, np.array([1.0]), inv_iw, iterations=4)
    assert vel[0, 1] == -0.05


def test_drift_matches_a_numpy_reference_of_the_midpoint_rotation():
    rng = np.random.default_rng(4)
    n = 3
    I = np.array([np.diag(rng.uniform(0.01, 0.1, 3)) for _ in range(n)])
    q = rng.normal(size=(n, 4)); q /= np.linalg.norm(q, axis=1, keepdims=True)
    w = rng.normal(0, 3, (n, 3)); pos = rng.normal(size=(n, 3)); vel = rng.normal(size=(n, 3))
    dt = 1 / 120

    def rot(qq, ww, h):      # reference: quaternion product with exp(h w / 2)
        a = np.linalg.norm(ww) * h
        k = ww / np.linalg.norm(ww)
        d = np.r_[np.cos(a / 2), np.sin(a / 2) * k]
        out = np.array([d[0] * qq[0] - d[1:] @ qq[1:], *(d[0] * qq[1:] + qq[0] * d[1:] + np.cross(d[1:], qq[1:]))])
        return out / np.linalg.norm(out)

    ref_q, ref_w = [], []
    for i in range(n):
        R = rigid.quat_to_matrix(q[i])
        L = R @ I[i] @ R.T @ w[i]
        qm = rot(q[i], w[i], dt / 2)
        Rm = rigid.quat_to_matrix(qm)
        wm = Rm @ np.linalg.inv(I[i]) @ Rm.T @ L
        qn = rot(q[i], wm, dt)
        Rn = rigid.quat_to_matrix(qn)
        ref_q.append(qn); ref_w.append(Rn @ np.linalg.inv(I[i]) @ Rn.T @ L)
    p_ref = pos + dt * vel
    bodies = records.body_arrays(n, pos=pos, vel=vel, quat=q, angvel=w, inertia=I, inv_inertia=np.linalg.inv(I))
    motion = records.motion_buffer(n)._replace(awake=np.ones(n, bool), vel0=vel.copy(), vel_pre=vel.copy(),
                                               toi=-np.ones(n))
    rigid.drift(n, bodies, motion, dt)
    assert np.allclose(q, ref_q, atol=1e-13) and np.allclose(w, ref_w, atol=1e-12)
    assert np.allclose(pos, p_ref, atol=1e-15)


def test_broad_phase_finds_exactly_the_overlapping_pairs():
    rng = np.random.default_rng(5)
    n = 200
    pos = rng.uniform(0, 2, (n, 3)); radius = rng.uniform(0.01, 0.1, n); margin = np.full(n, 0.01)
    alive = rng.random(n) > 0.1
    pairs = records.Pairs(np.zeros(5000, np.int64), np.zeros(5000, np.int64))
    bodies = records.body_arrays(n, alive=alive, pos=pos, radius=radius)
    motion = records.motion_buffer(n)._replace(awake=alive.copy(), margin=margin)
    m = contacts.broad_phase(n, bodies, motion, pairs)
    got = set(zip(pairs.a[:m].tolist(), pairs.b[:m].tolist()))
    ref = {(i, j) for i in range(n) for j in range(i + 1, n) if alive[i] and alive[j]
           and np.linalg.norm(pos[i] - pos[j]) < radius[i] + radius[j] + 0.02}
    assert got == ref



def test_the_contact_row_layout_names_every_slot_once():
    """contacts.py's named row: three direction blocks of DIR (3), ARM_A (3), ARM_B (3), TURN_A (3),
    TURN_B (3), MASS (1), then TARGET, TOI, MU, PUSH_TARGET: each of the ROW slots named exactly once."""
    block = [contacts.DIR + i for i in range(3)] + [contacts.ARM_A + i for i in range(3)] \
        + [contacts.ARM_B + i for i in range(3)] + [contacts.TURN_A + i for i in range(3)] \
        + [contacts.TURN_B + i for i in range(3)] + [contacts.MASS]
    assert sorted(block) == list(range(contacts.BLOCK))
    slots = [o + k for o in (contacts.NORMAL, contacts.TANGENT1, contacts.TANGENT2) for k in block]
    slots += [contacts.TARGET, contacts.TOI, contacts.MU, contacts.PUSH_TARGET]
    assert sorted(slots) == list(range(contacts.ROW))
