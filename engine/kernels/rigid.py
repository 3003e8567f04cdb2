"""Rigid-body integration over the BodyStore arrays (numba, serial: results are bitwise repeatable).

Linear part, velocity Verlet (exact for constant force):
    v_{n+1} = v_n + dt (g + F/m) + J/m                     (J: contact impulses of the step)
    x_{n+1} = x_n + dt (v_n + v_{n+1}) / 2                 (no contact impulse this step)
    x_{n+1} = x_n + tau v' + (dt - tau) v_{n+1}            (contact: v' pre-impact, tau time of impact)
Angular part: the angular momentum L = R I_b R^T w (world) is the conserved quantity:
    L_{n+1} = L_n + dt T + sum r x J
    q_mid = rot(w_n dt/2) q_n,  w_mid = I(q_mid)^-1 L,  q_{n+1} = rot(w_mid dt) q_n
(explicit midpoint on the rotation group; rot(a) turns by |a| about a), then w_{n+1} = I(q_{n+1})^-1 L_{n+1}. Torque-free spin
keeps L exactly and the energy to O(dt^2), with no secular drift in practice.
Quaternions are (w, x, y, z) and rotate body -> world.
"""
from __future__ import annotations

import numpy as np
from numba import njit


# Each helper is written once, in place (out = ...): the per-body loops fill scratch arrays made
# once per call instead of allocating small arrays per body.
@njit(cache=True, inline="always")
def _qmat_into(q, r):
    """r = the rotation matrix of the unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    r[0, 0] = 1.0 - 2.0 * (y * y + z * z); r[0, 1] = 2.0 * (x * y - w * z); r[0, 2] = 2.0 * (x * z + w * y)
    r[1, 0] = 2.0 * (x * y + w * z); r[1, 1] = 1.0 - 2.0 * (x * x + z * z); r[1, 2] = 2.0 * (y * z - w * x)
    r[2, 0] = 2.0 * (x * z - w * y); r[2, 1] = 2.0 * (y * z + w * x); r[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@njit(cache=True, inline="always")
def _sandwich_into(r, m, t, out):
    """out = R M R^T (t: 3x3 scratch); out must not alias r or m."""
    for i in range(3):
        for j in range(3):
            acc = 0.0
            for k in range(3):
                acc += r[i, k] * m[k, j]
            t[i, j] = acc
    for i in range(3):
        for j in range(3):
            acc = 0.0
            for k in range(3):
                acc += t[i, k] * r[j, k]
            out[i, j] = acc


@njit(cache=True, inline="always")
def _mv_into(m, v, out):
    for i in range(3):
        out[i] = m[i, 0] * v[0] + m[i, 1] * v[1] + m[i, 2] * v[2]


@njit(cache=True, inline="always")
def _rotate_quat_into(q, w, h, out):
    """exp(h w / 2) q into out (normalised); out must not alias q."""
    wx, wy, wz = w[0] * h, w[1] * h, w[2] * h
    ang = np.sqrt(wx * wx + wy * wy + wz * wz)
    if ang < 1e-300:
        for k in range(4):
            out[k] = q[k]
        return
    s = np.sin(0.5 * ang) / ang
    dw, dx, dy, dz = np.cos(0.5 * ang), wx * s, wy * s, wz * s
    o0 = dw * q[0] - dx * q[1] - dy * q[2] - dz * q[3]
    o1 = dw * q[1] + dx * q[0] + dy * q[3] - dz * q[2]
    o2 = dw * q[2] - dx * q[3] + dy * q[0] + dz * q[1]
    o3 = dw * q[3] + dx * q[2] - dy * q[1] + dz * q[0]
    nrm = np.sqrt(o0 ** 2 + o1 ** 2 + o2 ** 2 + o3 ** 2)
    out[0] = o0 / nrm; out[1] = o1 / nrm; out[2] = o2 / nrm; out[3] = o3 / nrm


@njit(cache=True)
def quat_to_matrix(q):
    """Rotation matrix of a unit quaternion (w, x, y, z)."""
    r = np.empty((3, 3))
    _qmat_into(q, r)
    return r


@njit(cache=True)
def quat_to_matrices(quat, out):
    """out[i] = the rotation matrix of quat[i], for every row of an (n, 4) array (out: (n, 3, 3))."""
    for i in range(quat.shape[0]):
        _qmat_into(quat[i], out[i])


@njit(cache=True)
def kick(n, bodies, motion, gravity, dt):
    """Apply gravity, accumulated forces and torques over dt to every awake body (records.Bodies,
    records.Motion); fill rotations and world inverse inertia.

    v += dt (g + F/m);  L = I_w w + dt T;  w = I_w^-1 L.  Saves the pre-kick velocities in
    motion.vel0 and motion.angvel0 (for the Verlet position update) and R, I_w^-1 per body for the
    contact solver (motion.rot, motion.inv_iw).
    """
    t = np.empty((3, 3)); iw = np.empty((3, 3)); L = np.empty(3)
    for i in range(n):
        if motion.awake[i]:
            _kick_into(i, bodies, motion, gravity, dt, t, iw, L)


@njit(cache=True)
def kick_body(i, bodies, motion, gravity, dt):
    """kick for body i alone (one woken in the middle of a substep), and its full inverse mass
    (freeze_sleepers had zeroed it)."""
    t = np.empty((3, 3)); iw = np.empty((3, 3)); L = np.empty(3)
    _kick_into(i, bodies, motion, gravity, dt, t, iw, L)
    motion.inv_mass_eff[i] = bodies.inv_mass[i]


@njit(cache=True, inline="always")
def _kick_into(i, bodies, motion, gravity, dt, t, iw, L):
    """kick's work for body i (t, iw: 3x3 scratch, L: 3)."""
    vel, angvel, quat, force, torque = bodies.vel, bodies.angvel, bodies.quat, bodies.force, bodies.torque
    inv_mass, inertia, inv_inertia = bodies.inv_mass, bodies.inertia, bodies.inv_inertia
    vel0, angvel0, rot, inv_iw = motion.vel0, motion.angvel0, motion.rot, motion.inv_iw
    vel0[i, 0] = vel[i, 0]; vel0[i, 1] = vel[i, 1]; vel0[i, 2] = vel[i, 2]
    r = rot[i]
    _qmat_into(quat[i], r)
    _sandwich_into(r, inertia[i], t, iw)
    inv = inv_iw[i]
    _sandwich_into(r, inv_inertia[i], t, inv)
    for k in range(3):
        vel[i, k] += dt * force[i, k] * inv_mass[i]
    vel[i, 1] -= dt * gravity
    if torque[i, 0] != 0.0 or torque[i, 1] != 0.0 or torque[i, 2] != 0.0:
        _mv_into(iw, angvel[i], L)
        for k in range(3):
            L[k] += dt * torque[i, k]
        _mv_into(inv, L, angvel[i])
    angvel0[i, 0] = angvel[i, 0]; angvel0[i, 1] = angvel[i, 1]; angvel0[i, 2] = angvel[i, 2]


@njit(cache=True)
def drift(n, bodies, motion, dt):
    """Move every awake body over dt with its new velocities (velocity Verlet, see the module
    docstring). Reads motion.vel0, vel_pre, toi, push_v, push_w; writes bodies.pos, quat, angvel.

    With a = (v_pre - v0) / dt the step's acceleration (v0 before the kick, v_pre after it):
    toi[i] < 0, no impulsive bounce (free, or held by contact forces through the step, which the
    contact solver's targets assume): x += dt (v0 + v) / 2, exact for a constant force (a box
    sliding to a stop under friction).  toi[i] = tau >= 0, an impulsive bounce tau into the step:
    x += tau (v0 + a tau / 2) + (dt - tau) (v - a (dt - tau) / 2) (exact for piecewise-constant
    acceleration).  Orientation: midpoint rotation at constant L.  Then the split-impulse
    pseudo-velocities of bodies with contacts move them, x += dt push_v, q = rot(push_w dt) q, and
    are forgotten (they never enter vel or angvel).
    """
    pos, vel, quat, angvel = bodies.pos, bodies.vel, bodies.quat, bodies.angvel
    inertia, inv_inertia = bodies.inertia, bodies.inv_inertia
    awake, vel0, vel_pre, toi = motion.awake, motion.vel0, motion.vel_pre, motion.toi
    push_v, push_w = motion.push_v, motion.push_w
    r = np.empty((3, 3)); tmp = np.empty((3, 3)); m = np.empty((3, 3))
    L = np.empty(3); wm = np.empty(3); qm = np.empty(4)
    for i in range(n):
        if not awake[i]:
            continue
        t = toi[i]
        if t < 0.0:
            for k in range(3):
                pos[i, k] += 0.5 * dt * (vel0[i, k] + vel[i, k])
        else:
            s = dt - t
            for k in range(3):
                a = (vel_pre[i, k] - vel0[i, k]) / dt
                pos[i, k] += t * (vel0[i, k] + 0.5 * a * t) + s * (vel[i, k] - 0.5 * a * s)
        for k in range(3):
            pos[i, k] += dt * push_v[i, k]
        pw = push_w[i]
        if pw[0] != 0.0 or pw[1] != 0.0 or pw[2] != 0.0:
            _rotate_quat_into(quat[i], pw, dt, qm)
            quat[i, 0] = qm[0]; quat[i, 1] = qm[1]; quat[i, 2] = qm[2]; quat[i, 3] = qm[3]
        w = angvel[i]
        if w[0] == 0.0 and w[1] == 0.0 and w[2] == 0.0:
            continue
        q = quat[i]
        _qmat_into(q, r)
        _sandwich_into(r, inertia[i], tmp, m)
        _mv_into(m, w, L)
        _rotate_quat_into(q, w, 0.5 * dt, qm)
        _qmat_into(qm, r)
        _sandwich_into(r, inv_inertia[i], tmp, m)
        _mv_into(m, L, wm)
        _rotate_quat_into(q, wm, dt, qm)
        q[0] = qm[0]; q[1] = qm[1]; q[2] = qm[2]; q[3] = qm[3]
        _qmat_into(q, r)
        _sandwich_into(r, inv_inertia[i], tmp, m)
        _mv_into(m, L, w)


@njit(cache=True)
def keep_above_floor(n, bodies, motion, size_x, size_z):
    """Guard the invariant that no centre of mass over the pool's floor, 0 <= x <= size_x and
    0 <= z <= size_z, is below it (y >= 0), whatever the speed: a centre put back loses its
    downward velocity. The contacts hold the bed, the walls and the deck; past the deck's outer
    edge (beyond `deck` metres from the walls) there is no ground, and a body there falls until
    FallOff takes it out of the world."""
    awake, pos, vel = motion.awake, bodies.pos, bodies.vel
    for i in range(n):
        if not awake[i]:
            continue
        if pos[i, 1] < 0.0 and 0.0 <= pos[i, 0] <= size_x and 0.0 <= pos[i, 2] <= size_z:
            pos[i, 1] = 0.0; vel[i, 1] = max(vel[i, 1], 0.0)


@njit(cache=True)
def max_travel(n, bodies, dt):
    """Largest distance any body point can move in dt, (|v| + |w| r) dt, m."""
    alive, vel, angvel, radius = bodies.alive, bodies.vel, bodies.angvel, bodies.radius
    m = 0.0
    for i in range(n):
        if alive[i]:
            s = np.sqrt(vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2) \
                + np.sqrt(angvel[i, 0] ** 2 + angvel[i, 1] ** 2 + angvel[i, 2] ** 2) * radius[i]
            m = max(m, s * dt)
    return m


@njit(cache=True)
def rotations(n, bodies, motion):
    """R and world inverse inertia R I_b^-1 R^T of every live body into motion.rot, motion.inv_iw
    (kick fills them for awake ones)."""
    alive, quat, inv_inertia, rot, inv_iw = bodies.alive, bodies.quat, bodies.inv_inertia, motion.rot, motion.inv_iw
    t = np.empty((3, 3))
    for i in range(n):
        if alive[i]:
            _qmat_into(quat[i], rot[i])
            _sandwich_into(rot[i], inv_inertia[i], t, inv_iw[i])


@njit(cache=True)
def update_sleep(n, bodies, motion, gravity, dt, speed, after):
    """Sleep bookkeeping: a body slower than `speed` (m/s at its rim) that touches something, and
    that the applied force could not tear from its support, for `after` seconds sleeps (timer >=
    after; it wakes above twice that speed): its velocities are zeroed and kick/drift skip it until
    a contact or a force wakes it. Returns the number of sleeping bodies.

    "Could not tear from its support": with a = F/m - g y (applied force and gravity), the body is
    pushed if a lifts it (a_y dt > speed: it floats) or slides it against Coulomb friction
    (|a_xz| - mu max(-a_y, 0)) dt > speed. So a shard resting under water (buoyancy < weight)
    sleeps, and a floating body, which touches nothing, never does: no freezing in mid-water.
    The timer is bodies.sleep; motion.touching says which bodies touch something.
    """
    alive, vel, angvel, radius, inv_mass = bodies.alive, bodies.vel, bodies.angvel, bodies.radius, bodies.inv_mass
    friction, force, timer, touching = bodies.friction, bodies.force, bodies.sleep, motion.touching
    asleep = 0
    s2 = speed * speed
    for i in range(n):
        if not alive[i]:
            continue
        v2 = vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2
        w2 = (angvel[i, 0] ** 2 + angvel[i, 1] ** 2 + angvel[i, 2] ** 2) * radius[i] * radius[i]
        ay = force[i, 1] * inv_mass[i] - gravity
        axz = np.sqrt((force[i, 0] * inv_mass[i]) ** 2 + (force[i, 2] * inv_mass[i]) ** 2)
        slide = axz - friction[i] * max(-ay, 0.0)
        pushed = ay * dt > speed or slide * dt > speed
        if timer[i] >= after and v2 < 4.0 * s2 and w2 < 4.0 * s2 and not pushed:
            pass                                   # asleep: only twice the sleep speed wakes it
        elif v2 < s2 and w2 < s2 and not pushed and touching[i]:
            timer[i] += dt
        else:
            timer[i] = 0.0
        if timer[i] >= after:
            vel[i, 0] = 0.0; vel[i, 1] = 0.0; vel[i, 2] = 0.0
            angvel[i, 0] = 0.0; angvel[i, 1] = 0.0; angvel[i, 2] = 0.0
            asleep += 1
    return asleep


@njit(cache=True)
def freeze_sleepers(n, bodies, motion):
    """Sleeping bodies take part in contacts as immovable (zero motion.inv_mass_eff and
    motion.inv_iw), so a body resting or sliding on them feels full support and friction."""
    alive, inv_mass = bodies.alive, bodies.inv_mass
    awake, inv_mass_eff, inv_iw = motion.awake, motion.inv_mass_eff, motion.inv_iw
    for i in range(n):
        if alive[i] and not awake[i]:
            inv_mass_eff[i] = 0.0
            for r in range(3):
                for c in range(3):
                    inv_iw[i, r, c] = 0.0
        else:
            inv_mass_eff[i] = inv_mass[i]


@njit(cache=True)
def wake_struck(nc, con, motion, timer, speed):
    """Wake a sleeping body that was struck (zero its sleep timer): one of its contacts (records.
    Contacts) took an impulse while approaching faster than `speed` (m/s; a body merely resting on
    it approaches at about g dt)."""
    ca, cb, vn0, jn, awake = con.body_a, con.body_b, con.approach, con.jn, motion.awake
    for c in range(nc):
        if jn[c] > 0.0 and vn0[c] < -speed:
            for i in (ca[c], cb[c]):
                if i >= 0 and not awake[i]:
                    timer[i] = 0.0
