"""DispersiveStepFluid: the water step with dispersive surface waves and vorticity confinement.

The surface-wave stage (SurfaceWaves) works over the water grid's public arrays only (h, bed, u, w,
dx, read), so it can move into the water package as it is. Its hook, in the order a step must run
(DispersiveStepFluid.process does exactly this):

    confine              vorticity confinement into grid.ax / grid.az (applied by the step)
    SurfaceWaves.split   before the shallow-water step: take the surface part out of h, u, w
                         (grid.h -= eta_s, interior faces -= grad phi_s) and step it with Airy's
                         dispersion (engine.kernels.dispersion, equation (2)) over dt
    <shallow-water step> steps the bulk that is left (and damps it): StepFluid.process
    SurfaceWaves.merge   after it: carry the stepped surface part by the bulk velocity over dt,
                         limit it by the new bulk depth, add it back (h += eta_s', faces += grad phi_s')

Nothing else runs between the halves, so every other system (and every mod placed before or after
"StepFluid") sees the whole water. What other systems write into the grid between steps goes to the
bulk and is split again at the next step. Equations and invariants: the kernel module's docstring.
On with `[water] dispersion = true` (the default); `false` leaves the shallow-water step alone.
"""
from __future__ import annotations

from dataclasses import dataclass

import esper
import numpy as np
from numpy.typing import NDArray
from scipy import ndimage

from engine.components import WaterGrid
from engine.kernels import dispersion as dk
from engine.systems.confine_vortices import confine
from engine.systems.step_fluid import StepFluid

SMOOTH = 5       # cells: width of the bed average that sets each cell's depth level weights
SHORE = 3.0      # cells: the surface part ramps in over this distance from the nearest dry cell
QUIET_V = 1e-7   # m/s: with eta_s under dk.QUIET, a surface velocity under this is no surface part


@dataclass
class _Pending:
    """The surface part of one grid between the two halves of a step."""
    eta: NDArray[np.float64]     # stepped eta_s, m (cells)
    phi: NDArray[np.float64]     # stepped phi_s, m^2/s (cells)


class SurfaceWaves:
    """The dispersive surface-wave stage of one grid shape: wavenumbers, cached Airy coefficients,
    the sponge. `split` and `merge` are the two halves (see the module docstring)."""

    def __init__(self, shape: tuple[int, int], dx: float, gravity: float, open_sides: tuple[bool, ...],
                 damping: float = 0.0, eddy_viscosity: float = 0.0,
                 inflow_sides: tuple[bool, ...] = (False, False, False, False)) -> None:
        nz, nx = shape
        self.shape, self.dx, self.g, self.damping = shape, float(dx), float(gravity), float(damping)
        self.eddy_viscosity = float(eddy_viscosity)   # m^2/s, the bulk's horizontal eddy viscosity
        self.k, self.k2 = dk.wavenumbers(nz, nx, self.dx)
        self.full = dk.full_depth(self.dx)
        self._bed: NDArray | None = None
        self._dry: NDArray | None = None
        self._shore: NDArray | None = None
        self._bed_smooth: NDArray | None = None
        self._hull_mask: NDArray | None = None
        self._hull_ramp: NDArray | None = None
        self.open_sides = tuple(bool(s) for s in open_sides)
        self.inflow_sides = tuple(bool(s) for s in inflow_sides)
        self._coef: dict[tuple[float, float], tuple[NDArray, NDArray, NDArray]] = {}
        self._split: dict[float, NDArray] = {}
        self._sponge: dict[float, NDArray | None] = {}
        self._visc: dict[float, NDArray] = {}

    def split(self, h: NDArray, bed: NDArray, u: NDArray, w: NDArray, dt: float,
              covered: NDArray | None = None) -> tuple[NDArray, NDArray, NDArray, _Pending] | None:
        """The surface part (eta_s, grad phi_s on x faces, on z faces) to take out of h, u, w, and
        the surface part stepped over dt; None when there is none (calm, or no wet cell).
        `covered` (m, cells): the height of floating bodies counted in h (CoupleWater); the surface
        part's elevation ramps out towards those columns (see _hull)."""
        lam = self._hull(self._limiter(h), covered)
        wet = lam > 0.0
        if not wet.any():
            return None
        eta = bed + h
        ref = float(eta[wet].mean())
        e_hat = dk.dct(np.where(wet, eta - ref, 0.0).astype(np.float32))
        p_hat = dk.potential_spectrum(dk.dct(dk.divergence(*self._through_inflows(u, w), self.dx)
                                             .astype(np.float32)), self.k2)
        # the still-water depth sets both the split and the dispersion of each cell: blend the levels' results
        still = np.maximum(ref - self._smooth_bed(bed), 0.0)
        deep = wet & (still >= dk.MIN_LEVEL)
        levels = dk.depth_levels(float(still[deep].min()) if deep.any() else dk.MIN_LEVEL,
                                 float(still[wet].max()))
        weights = dk.level_weights(still, levels)
        parts = []
        for depth in levels:
            keep = self._split_filter(float(depth))
            parts.append((e_hat * keep, p_hat * keep))
        eta_s = _blend([dk.idct(e_j) for e_j, _ in parts], weights)
        phi_s = _blend([dk.idct(p_j) for _, p_j in parts], weights)
        # limit, then step exactly what is taken out (stepping more would count the rest twice)
        unlimited = len(levels) == 1 and lam.min() >= 1.0 and bool(np.all(np.abs(eta_s) <= dk.HALF * h))
        dk.limit_surface(eta_s, h, lam, *self._basins(lam))
        phi_s *= lam
        us, ws = dk.gradient(phi_s, self.dx)
        if (np.abs(eta_s).max() < dk.QUIET and max(np.abs(us).max(initial=0.0), np.abs(ws).max(initial=0.0))
                < QUIET_V):
            return None
        if not unlimited:   # else the limiter only removed the sum's round-off: the spectra are eta_s's
            parts = [(dk.dct(eta_s.astype(np.float32)), dk.dct(phi_s.astype(np.float32)))] * len(levels)
        stepped = []
        visc = self._viscous_decay(dt)
        for depth, (e_j, p_j) in zip(levels, parts):
            c, a, b = self._coefficients(float(depth), dt)
            p_n = c * p_j - b * e_j
            if visc is not None:
                p_n *= visc
            stepped.append((dk.idct(c * e_j + a * p_j), dk.idct(p_n)))
        eta_n = _blend([e for e, _ in stepped], weights)
        phi_n = _blend([p for _, p in stepped], weights)
        if self.damping > 0.0:
            phi_n *= np.exp(-self.damping * dt)
        return eta_s, us, ws, _Pending(eta_n, phi_n)

    def merge(self, pending: _Pending, h: NDArray, u: NDArray, w: NDArray, dt: float,
              covered: NDArray | None = None) -> tuple[NDArray, NDArray, NDArray]:
        """The stepped surface part carried by the bulk velocity (u, w) over dt and limited by the
        bulk depth h: (eta_s, grad phi_s on x faces, on z faces) to add to h, u, w."""
        eta, phi = pending.eta, pending.phi
        if np.any(u) or np.any(w):
            eta_c, phi_c = np.empty_like(eta), np.empty_like(phi)
            dk.advect(eta, u, w, self.dx, float(dt), eta_c)
            dk.advect(phi, u, w, self.dx, float(dt), phi_c)
            eta, phi = eta_c, phi_c
        damp = self._sponge_of(dt)
        if damp is not None:
            eta = eta * damp
            phi = phi * damp
        lam = self._hull(self._limiter(h), covered)
        dk.limit_surface(eta, h, lam, *self._basins(lam))
        us, ws = dk.gradient(phi * lam, self.dx)
        return eta, us, ws

    def _through_inflows(self, u: NDArray, w: NDArray) -> tuple[NDArray, NDArray]:
        """(u, w) with an inflow side's faces set to the next interior face's velocity. An inflow side
        pours its rate into its edge cells (WaterGrid._pour) behind a closed face: read as it is, the
        river's current is a line source there, whose potential's short-wave part the stage would take
        out of the current and step as waves (a 0.18 m/s river ran at 0.5 m/s in its first cell and
        0.07 m/s half a metre on). The flux that the pour stands for enters through the side's face,
        so the current leaves no divergence at the side."""
        if not any(self.inflow_sides):
            return u, w
        u, w = u.copy(), w.copy()
        x_min, x_max, z_min, z_max = self.inflow_sides
        if x_min:
            u[:, 0] = u[:, 1]
        if x_max:
            u[:, -1] = u[:, -2]
        if z_min:
            w[0, :] = w[1, :]
        if z_max:
            w[-1, :] = w[-2, :]
        return u, w

    # -- cached pieces -----------------------------------------------------------------------
    def _limiter(self, h: NDArray) -> NDArray:
        """The depth limiter (dk.limiter) times a ramp from 0 at a dry cell to 1 at SHORE cells from it:
        the DCT's walls are the pool's sides only, so the surface part fades out at shores and at
        obstacles standing out of the water (which then absorb short waves instead of reflecting them),
        and what reaches them goes on in the bulk."""
        lam = dk.limiter(h, self.full)
        dry = lam <= 0.0
        if self._dry is None or not np.array_equal(self._dry, dry):
            self._dry = dry
            if dry.any():
                dist = ndimage.distance_transform_edt(~dry)
                self._shore = np.clip((dist - 1.0) / SHORE, 0.0, 1.0)
            else:
                self._shore = None
        if self._shore is not None:
            lam *= self._shore
        return lam

    def _basins(self, lam: NDArray) -> tuple[NDArray | None, int]:
        """(labels, count) of the connected regions of lam > 0 (across cell faces): the basins that
        walls or dry land standing out of the water separate, each of which keeps its own volume."""
        labels, n = ndimage.label(lam > 0.0)
        return (labels, int(n)) if n > 1 else (None, int(n))

    def _hull(self, lam: NDArray, covered: NDArray | None) -> NDArray:
        """lam times a ramp from 0 in a column a floating body covers (covered > 0) to 1 at SHORE cells
        from it: a hull is a shore to the surface part. Such a column's h holds the body's displaced
        volume (h += b - b_prev, CoupleWater), a level the hull sets, not a free surface: stepped as
        free Airy waves, the sharp edge of b (redrawn every step as the body moves) turns into short
        waves that run back onto the hull and pump its roll and heave. The body's own waves start in
        the bulk, as the coupling's radiation damping (engine/kernels/water_forces.py) assumes, and
        join the surface part SHORE cells out."""
        if covered is None:
            return lam
        hull = covered > 0.0
        if not hull.any():
            return lam
        if self._hull_mask is None or not np.array_equal(self._hull_mask, hull):
            self._hull_mask = hull
            # the ramp reaches 1 at SHORE + 1 cells: the distance transform needs only the hull's
            # bounding box grown by that much (the transform over a whole grid is the cost to avoid)
            ks, is_ = np.nonzero(hull)
            pad = int(SHORE) + 2
            k0, k1 = max(int(ks.min()) - pad, 0), min(int(ks.max()) + pad + 1, hull.shape[0])
            i0, i1 = max(int(is_.min()) - pad, 0), min(int(is_.max()) + pad + 1, hull.shape[1])
            ramp = np.ones(hull.shape)
            ramp[k0:k1, i0:i1] = np.clip((ndimage.distance_transform_edt(~hull[k0:k1, i0:i1]) - 1.0) / SHORE,
                                         0.0, 1.0)
            self._hull_ramp = ramp
        return lam * self._hull_ramp

    def _smooth_bed(self, bed: NDArray) -> NDArray:
        """The bed averaged over SMOOTH x SMOOTH cells (kept while the bed is unchanged): the depth levels'
        weights then change over a few cells, not at once across a step in the bed, where the
        velocity between two cells stepped at different depths would mix two different fields."""
        if self._bed is None or not np.array_equal(self._bed, bed):
            self._bed = np.array(bed)
            self._bed_smooth = ndimage.uniform_filter(self._bed, size=SMOOTH, mode="nearest")
        assert self._bed_smooth is not None
        return self._bed_smooth

    def _split_filter(self, depth: float) -> NDArray:
        got = self._split.get(depth)
        if got is None:
            if len(self._split) > 16:
                self._split.clear()
            got = self._split[depth] = (1.0 - dk.split_filter(self.k, depth)).astype(np.float32)
        return got

    def _coefficients(self, depth: float, dt: float) -> tuple[NDArray, NDArray, NDArray]:
        key = (depth, float(dt))
        got = self._coef.get(key)
        if got is None:
            if len(self._coef) > 32:
                self._coef.clear()
            a, b, c = (c.astype(np.float32) for c in dk.airy_coefficients(self.k, depth, self.g, float(dt)))
            got = self._coef[key] = (a, b, c)
        return got

    def _viscous_decay(self, dt: float) -> NDArray | None:
        """exp(-nu_t K2 dt) per mode: the bulk's eddy viscosity nu_t lap(v) acting on the surface part's
        potential, so a mode decays at the same rate nu_t K2 / 2 in amplitude whichever part holds it."""
        if self.eddy_viscosity <= 0.0:
            return None
        got = self._visc.get(float(dt))
        if got is None:
            got = self._visc[float(dt)] = np.exp(-self.eddy_viscosity * self.k2 * float(dt)).astype(np.float32)
        return got

    def _sponge_of(self, dt: float) -> NDArray | None:
        if float(dt) not in self._sponge:
            nz, nx = self.shape
            self._sponge[float(dt)] = dk.sponge(nz, nx, self.dx, self.open_sides, float(dt))  # type: ignore[arg-type]
        return self._sponge[float(dt)]


def _blend(fields: list[NDArray], weights: list[NDArray]) -> NDArray[np.float64]:
    """sum_j weights[j] fields[j] in float64 (one level: the field itself)."""
    if len(fields) == 1:
        return fields[0].astype(np.float64)
    out = np.zeros(fields[0].shape)
    for f, wgt in zip(fields, weights):
        out += wgt * f
    return out


def _open_sides(grid: WaterGrid) -> tuple[bool, bool, bool, bool]:
    return tuple(grid.boundary.side(s) in ("absorbing", "outflow")   # type: ignore[return-value]
                 for s in ("x_min", "x_max", "z_min", "z_max"))


def _inflow_sides(grid: WaterGrid) -> tuple[bool, bool, bool, bool]:
    return tuple(grid.boundary.side(s) == "inflow"   # type: ignore[return-value]
                 for s in ("x_min", "x_max", "z_min", "z_max"))


class DispersiveStepFluid(StepFluid):
    """StepFluid with the detail stages around the shallow-water step: vorticity confinement before
    it, dispersive surface waves split off before it and merged back after it (see the module
    docstring). It keeps the name "StepFluid", so systems placed before or after StepFluid see the
    whole water step, surface waves included.

    Reads: WaterGrid. Writes: WaterGrid. Emits: nothing.
    """

    name = "StepFluid"
    READS = ("WaterGrid.bed", "WaterGrid.sources", "system:CoupleWater.b_prev", "system:CoupleWater.displaced")
    WRITES = ("WaterGrid.h", "WaterGrid.u", "WaterGrid.w", "WaterGrid.ax", "WaterGrid.az", "WaterGrid.source_volume",
              "WaterGrid.substeps")
    EMITS = ()

    def bind(self, sim) -> None:
        super().bind(sim)
        self.damping = float(sim.level.water.damping)   # the extra uniform rate; friction acts on the bulk
        self.dispersion = bool(sim.level.water.dispersion)
        self.vorticity = float(sim.level.water.vorticity)
        self.stages: dict[int, SurfaceWaves] = {}
        self.confine_scratch: dict[tuple[int, int], tuple[NDArray, NDArray]] = {}

    def stage(self, entity: int, grid: WaterGrid) -> SurfaceWaves:
        """The surface-wave stage of a grid, built again if its shape, cell or sides changed."""
        st = self.stages.get(entity)
        if (st is None or st.shape != grid.shape or st.dx != float(grid.dx) or st.open_sides != _open_sides(grid)
                or st.eddy_viscosity != float(grid.eddy_viscosity) or st.inflow_sides != _inflow_sides(grid)):
            st = self.stages[entity] = SurfaceWaves(grid.shape, grid.dx, grid.gravity, _open_sides(grid),
                                                    self.damping, float(grid.eddy_viscosity), _inflow_sides(grid))
        return st

    def _covered(self, grid: WaterGrid) -> NDArray | None:
        """The covered height CoupleWater holds in this grid's h (its b_prev), or None."""
        if grid is not getattr(self.sim, "water", None):
            return None
        try:
            cw = self.sim.get_system("CoupleWater")
        except KeyError:
            return None
        b = getattr(cw, "b_prev", None)
        if b is None or b.shape != grid.shape or getattr(cw, "displaced", 0.0) == 0.0:
            return None
        return b

    def process(self, dt: float) -> None:
        grids = list(esper.get_component(WaterGrid))
        if self.vorticity > 0.0:
            for _, grid in grids:
                confine(grid, self.vorticity, self.confine_scratch)
        pending = {}
        if self.dispersion:
            for ent, grid in grids:
                got = self.stage(ent, grid).split(grid.read("h"), grid.read("bed"), grid.read("u"),
                                                  grid.read("w"), dt, self._covered(grid))
                if got is not None:
                    eta_s, us, ws, pending[ent] = got
                    grid.h[...] -= eta_s          # the bulk, which the shallow-water step advances
                    grid.u[:, 1:-1] -= us
                    grid.w[1:-1, :] -= ws
        super().process(dt)
        for ent, grid in grids:
            if ent in pending:
                eta, us, ws = self.stage(ent, grid).merge(pending[ent], grid.read("h"), grid.read("u"),
                                                          grid.read("w"), dt, self._covered(grid))
                grid.h[...] += eta
                grid.u[:, 1:-1] += us
                grid.w[1:-1, :] += ws
