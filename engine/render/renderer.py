"""The renderer: draws a Simulation's pool, water, bodies, spray and debug views with GLSL.

    window = create_context(1280, 720)              # or the game's own window (context current)
    renderer = Renderer(sim, 1280, 720)             # subscribes to the sim's Splash/Shattered/Impact
    camera = OrbitCamera.from_level(sim.level, 1280 / 720)
    renderer.draw(camera, debug=None)               # "depth", "velocity" or "bounds"
    renderer.present()                              # windowed: blit to the window
    image = renderer.read_rgba()                    # headless: (720, 1280, 4) uint8
    renderer.render_scale = 0.75                    # draw the 3D scene at 75% and upscale (any time)

Frame order (opaque first, then transparent back to front):
  1. scene target: sky, the tiled pool (caustics under water), and the parts of glass bodies below
     the water surface, blended back to front;
  2. frame target: copy of the scene (colour + depth); the water surface, which samples the scene
     texture with an offset from its normal scaled by the water depth (refraction), mixes in the sky
     cube map by Fresnel and writes depth; then the parts of glass bodies above the surface, back to
     front; spray; debug lines on top.
  3. Both targets are `render_size`: the output size times `render_scale` (never below
     `min_render_height` rows, nor above the output). When that is smaller than the output,
     `present` scales the frame up with linear filtering straight into the window (the game's HUD
     is drawn afterwards at full resolution) and `read_rgba` / `resolve` scale it into a full-size
     output target. On Mesa llvmpipe pixel shading dominates a frame, so this is the main knob.
The renderer only reads the simulation.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine import events as ev
from engine.render import meshes
from engine.render.camera import OrbitCamera
from engine.render.context import gl
from engine.render.effects import Foam, Spray
from engine.render.glsl import Program
from engine.render.targets import CubeMap, Framebuffer, Mesh, Texture2D, gl_errors
from engine.render.textures import cube_faces, tile_maps

DEBUG_VIEWS = ("depth", "velocity", "bounds")
GLASS_TINT = (0.35, 0.62, 0.45, 0.22)     # bottle-green soda-lime glass
SHARD_TINT = (0.60, 0.85, 0.68, 0.30)
PROP_TINT = (0.75, 0.55, 0.35, 1.00)
UNIT = {"water": 0, "tile_diffuse": 1, "water_extra": 2, "sky": 3, "scene_color": 4, "scene_depth": 5,
        "frame_color": 6}
N_SHARD_SHAPES = 8


class Renderer:
    """Draw one Simulation into an RGBA8 framebuffer of `width` x `height` (a GL context must be current)."""

    refraction_strength = 0.06    # screen fraction per unit normal tilt per metre of water
    caustic_strength = 1.0
    absorption = (0.70, 0.16, 0.12)       # 1/m: water swallows red first, so depth looks blue-green
    deep_color = (0.02, 0.20, 0.26)
    clear_color = (0.0, 0.0, 0.0, 1.0)
    # Internal resolution of the 3D scene as a fraction of the output (see the module docstring).
    # Chosen by measurement with `bottles bench --render` on llvmpipe, 2 cores, 1280x720.
    DEFAULT_RENDER_SCALE = 0.6
    min_render_height = 360       # small outputs (tests, thumbnails) render at full resolution
    # The water grid is drawn with one quad per cell while a cell can cover this many pixels of the
    # render target where it is nearest the camera; smaller cells are drawn in 2x2 (or 4x4) blocks.
    # The fragment shader reads the normal, depth and foam of every cell either way, so this only
    # drops geometry finer than a pixel or two, which llvmpipe pays for per triangle. 0: every cell.
    water_lod_pixels = 8.0

    def __init__(self, sim: Any, width: int, height: int) -> None:
        g = gl()
        self.width, self.height = int(width), int(height)
        self._render_scale = float(self.DEFAULT_RENDER_SCALE)
        self.render_size = self._internal_size()
        self.programs: dict[str, Program] = {}
        self._program_lights = -1
        self._build_programs(0)
        diffuse, specular = tile_maps()
        self.tile_diffuse = Texture2D(np.dstack([diffuse, specular]), mipmap=True, repeat=True)
        self.empty_vao = Mesh(np.zeros((0, 1), np.float32), [1])
        self.scene = Framebuffer(*self.render_size)
        self.frame = Framebuffer(*self.render_size)
        self.output: Framebuffer | None = None     # full-size target for read_rgba when scaled
        self._resolved = False
        self.spray_mesh = Mesh(np.zeros((0, 5), np.float32), [3, 2], mode="GL_POINTS")
        self.line_mesh = Mesh(np.zeros((0, 6), np.float32), [3, 3], mode="GL_LINES")
        self.body_meshes: dict[Any, Mesh] = {}
        self._fallback_models()
        self.sim: Any = None
        self.contacts: list[tuple[float, tuple[float, float, float]]] = []
        self.profile: dict[str, float] | None = None   # set to {} to time each pass (adds glFinish)
        self._t = 0.0
        self.attach(sim)
        g.glBindVertexArray(0)

    def _build_programs(self, lights: int) -> None:
        """(Re)link the programs for a level with `lights` point lights (a compile-time constant)."""
        lights = int(np.clip(lights, 0, 4))
        if lights == self._program_lights:
            return
        for prog in self.programs.values():
            prog.delete()
        d = {"LIGHTS": lights}
        self.programs = {
            "sky": Program("sky.vert", "sky.frag"),
            "pool": Program("pool.vert", "pool.frag", defines=d),
            "water": Program("water.vert", "water.geom", "water.frag", defines=d),
            "glass": Program("glass.vert", "glass.frag", defines=d),
            "liquid": Program("glass.vert", "liquid.frag"),
            "particles": Program("particles.vert", "particles.frag"),
            "lines": Program("lines.vert", "lines.frag"),
            "upscale": Program("sky.vert", "upscale.frag"),
        }
        for prog in self.programs.values():
            with prog:
                for name, unit in UNIT.items():
                    prog[name] = unit
        self._program_lights = lights

    # -- simulation ------------------------------------------------------------------------
    def attach(self, sim: Any) -> None:
        """Draw `sim` from now on and subscribe to its Splash, Shattered and Impact events."""
        if self.sim is not None and self.sim is not sim:
            for kind, fn in ((ev.Splash, self._on_splash), (ev.Shattered, self._on_shattered),
                             (ev.Impact, self._on_impact)):
                self.sim.off(kind, fn)
        self.sim = sim
        level = sim.level
        self._build_programs(len(list(level.lights)))
        water = sim.water
        nz, nx = water.shape
        self.grid = (nx, nz)
        self.dx = float(water.dx)
        self.pool_size = (nx * self.dx, nz * self.dx)
        self.water_data = np.zeros((nz, nx, 4), np.float32)     # eta, h, d(eta)/dx, d(eta)/dz
        self.water_extra = np.zeros((nz, nx, 4), np.uint8)      # foam, caustic focus / 3
        self.water_tex = Texture2D(self.water_data, linear=True)
        self.extra_tex = Texture2D(self.water_extra, linear=True)
        basin = meshes.pool_mesh(self.pool_size, level.pool.wall_height)
        self.pool_mesh = Mesh(np.concatenate([basin, meshes.bed_mesh(water.bed, self.dx)]), [3, 3, 2, 1])
        self.sky_tex = CubeMap(cube_faces(level.sky))
        self.spray = Spray(gravity=float(level.gravity))
        self.foam = Foam((nz, nx), self.dx)
        self.contacts = []
        self._last_time = float(sim.time)
        sim.on(ev.Splash, self._on_splash)
        sim.on(ev.Shattered, self._on_shattered)
        sim.on(ev.Impact, self._on_impact)

    def _surface(self, x: NDArray[np.float64], z: NDArray[np.float64]) -> NDArray[np.float64]:
        """Water surface height at world points (nearest cell; -inf outside the pool)."""
        nx, nz = self.grid
        i = np.floor(np.asarray(x) / self.dx).astype(int)
        k = np.floor(np.asarray(z) / self.dx).astype(int)
        inside = (i >= 0) & (i < nx) & (k >= 0) & (k < nz)
        eta = self.water_data[np.clip(k, 0, nz - 1), np.clip(i, 0, nx - 1), 0]
        return np.where(inside, eta, -np.inf)

    def _on_splash(self, e: ev.Splash) -> None:
        x, y, z = e.position
        surf = float(self._surface(np.array([x]), np.array([z]))[0])
        y = max(y, surf) if np.isfinite(surf) else y
        speed = max(float(e.speed), 0.5)
        self.spray.emit((x, y, z), speed * 0.8, int(np.clip(40 + 60 * speed + 2e5 * e.volume, 30, 600)))
        if np.isfinite(surf):
            self.foam.add(x, z, 0.06 + 0.03 * speed, 0.9)

    def _on_shattered(self, e: ev.Shattered) -> None:
        x, y, z = e.position
        surf = float(self._surface(np.array([x]), np.array([z]))[0])
        self.spray.emit((x, max(y, surf) if np.isfinite(surf) else y, z), 2.0 + 0.5 * float(e.impulse),
                        int(np.clip(150 + 3e5 * e.released_volume, 150, 800)), spread=0.9, up=0.8)
        if np.isfinite(surf) and y < surf + 0.3:
            self.foam.add(x, z, 0.15, 1.0)

    def _on_impact(self, e: ev.Impact) -> None:
        self.contacts.append((float(e.time), tuple(e.point)))

    # -- meshes ----------------------------------------------------------------------------
    def _fallback_models(self) -> None:
        v, t = meshes.bottle_mesh()
        self.bottle_verts = v[:, :3].astype(np.float64)
        self.body_meshes["bottle"] = Mesh(meshes.with_bary(v, t), [3, 3, 3], instance_layout=[4, 4, 4, 4, 4, 1])
        lv, lt = meshes.liquid_mesh()
        self.body_meshes["liquid"] = Mesh(meshes.with_bary(lv, lt), [3, 3, 3], instance_layout=[4, 4, 4, 4, 4, 1])
        self.inner_samples = meshes.inner_samples()
        self.shard_verts = []
        for s in range(N_SHARD_SHAPES):
            sv, st = meshes.shard_shape(s)
            self.shard_verts.append(sv)
            self.body_meshes[("shard", s)] = Mesh(meshes.flat_shade(sv, st), [3, 3, 3],
                                                  instance_layout=[4, 4, 4, 4, 4, 1])
        box = np.array([[x, y, z] for x in (-.05, .05) for y in (-.05, .05) for z in (-.05, .05)])
        faces = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6),
                 (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
        self.prop_verts = box
        self.body_meshes["prop"] = Mesh(meshes.flat_shade(box, faces), [3, 3, 3], instance_layout=[4, 4, 4, 4, 4, 1])

    def _model_mesh(self, mid: int, model: Any, flat: bool) -> tuple[Mesh, NDArray[np.float64]]:
        key = ("model", mid, flat)      # model ids are append-only: an id never changes meaning
        verts = np.asarray(model.vertices, float)
        if key not in self.body_meshes:
            tris = np.asarray(model.triangles, int)
            if flat:
                data = meshes.flat_shade(verts, tris)
            else:
                nrm = np.zeros_like(verts)
                p = verts[tris]
                fn = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
                for c in range(3):
                    np.add.at(nrm, tris[:, c], fn)
                nrm /= np.linalg.norm(nrm, axis=1, keepdims=True) + 1e-12
                data = meshes.with_bary(np.c_[verts, nrm].astype(np.float32), tris.astype(np.uint32))
            self.body_meshes[key] = Mesh(data, [3, 3, 3], instance_layout=[4, 4, 4, 4, 4, 1])
        return self.body_meshes[key], verts

    def body_groups(self, eye: NDArray[np.float64]) -> dict[str, list[tuple[Mesh, NDArray[np.float32], float]]]:
        """Gather the live bodies into instanced draws, each sorted back to front from `eye`.

        Returns {"liquid": [...], "glass": [...], "opaque": [...]} of (mesh, instances, edge_strength),
        and keeps `self.body_boxes` (oriented bounding boxes) for the bounds view.
        """
        store = self.sim.body_store
        n = int(store.n)
        out: dict[str, list[tuple[Mesh, NDArray[np.float32], float]]] = {"liquid": [], "glass": [], "opaque": []}
        self.body_boxes: list[NDArray[np.float64]] = []
        if n == 0:
            return out
        slots = np.nonzero(np.asarray(store.alive[:n], bool))[0]
        if len(slots) == 0:
            return out
        pos = np.asarray(store.pos[slots], float)
        rot = meshes.quat_to_matrices(store.quat[slots])
        kinds = np.asarray(store.kind[slots], int)
        dist = np.linalg.norm(pos - eye, axis=1)
        models = getattr(store, "models", None)
        model_id = getattr(store, "model_id", None)
        use_models = models is not None and model_id is not None and len(models) > 0
        groups: dict[Any, list[int]] = {}
        for j, s in enumerate(slots):
            kind = ("bottle", "shard", "prop")[kinds[j]] if kinds[j] < 3 else "prop"
            if use_models:
                key = ("m", kind, int(model_id[s]))
            elif kind == "shard":
                key = ("shard", int(s) % N_SHARD_SHAPES)
            else:
                key = (kind,)
            groups.setdefault(key, []).append(j)
        for key, members in groups.items():
            idx = np.asarray(members)[np.argsort(-dist[members], kind="stable")]
            kind = key[1] if key[0] == "m" else key[0]
            if key[0] == "m":
                mesh, verts = self._model_mesh(key[2], models[key[2]], flat=(kind != "bottle"))
            elif kind == "shard":
                mesh, verts = self.body_meshes[key], self.shard_verts[key[1]]
            else:
                mesh, verts = self.body_meshes[kind], (self.bottle_verts if kind == "bottle" else self.prop_verts)
            lo, hi = verts.min(0), verts.max(0)
            for j in idx:
                corners = meshes.box_lines(lo, hi) @ rot[j].T + pos[j]
                self.body_boxes.append(corners)
            tint = {"bottle": GLASS_TINT, "shard": SHARD_TINT}.get(kind, PROP_TINT)
            inst = np.empty((len(idx), 21), np.float32)
            inst[:, :16] = meshes.model_matrices(rot[idx], pos[idx])
            inst[:, 16:20] = tint
            inst[:, 20] = -1e9
            if kind == "bottle":
                inner = np.asarray(store.inner_volume[slots[idx]], float)
                held = np.asarray(store.held_water[slots[idx]], float)
                frac = np.where(inner > 0, held / np.maximum(inner, 1e-12), 0.0)
                scale = None
                samples = self.inner_samples
                lpos = pos[idx]
                if key[0] == "m":   # fit the fallback inside into the model's bounding box
                    flo, fhi = self.bottle_verts.min(0), self.bottle_verts.max(0)
                    ext = (hi - lo) / np.maximum(fhi - flo, 1e-9)
                    shift = lo - flo * ext
                    samples = samples * ext + shift
                    scale = np.repeat(ext[None, :], len(idx), 0)
                    lpos = pos[idx] + rot[idx] @ shift
                levels = meshes.fill_levels(samples, rot[idx], pos[idx], frac)
                inst[:, 20] = levels
                if (frac > 0).any():
                    linst = inst.copy()
                    linst[:, :16] = meshes.model_matrices(rot[idx], lpos, scale)
                    out["liquid"].append((self.body_meshes["liquid"], linst[frac > 0], 0.0))
                out["glass"].append((mesh, inst, 0.0))
            elif kind == "shard":
                try:   # shards past the cap fade out (engine/systems/shatter.py)
                    with self.sim._context():
                        inst[:, 19] *= self.sim.get_system("Shatter").slot_alpha(slots[idx])
                except (KeyError, AttributeError):
                    pass
                out["glass"].append((mesh, inst, 1.0))
            else:
                out["opaque"].append((mesh, inst, 0.0))
        return out

    # -- frame -----------------------------------------------------------------------------
    @property
    def render_scale(self) -> float:
        """Fraction of the output resolution the 3D scene is drawn at (0.25..1; set any time)."""
        return self._render_scale

    @render_scale.setter
    def render_scale(self, value: float) -> None:
        self._render_scale = float(np.clip(value, 0.25, 1.0))
        self.resize(self.width, self.height)

    def _internal_size(self) -> tuple[int, int]:
        s = self._render_scale
        if self.height * s < self.min_render_height:
            s = min(1.0, self.min_render_height / self.height)
        if s >= 0.999:
            return self.width, self.height
        return max(1, int(round(self.width * s))), max(1, int(round(self.height * s)))

    def resize(self, width: int, height: int) -> None:
        """Resize the render targets (call when the window changes size)."""
        self.width, self.height = max(1, int(width)), max(1, int(height))
        size = self._internal_size()
        if size != self.render_size or (self.scene.width, self.scene.height) != size:
            self.render_size = size
            self.scene.resize(*size)
            self.frame.resize(*size)
        if self.output is not None and (self.output.width, self.output.height) != (self.width, self.height):
            self.output.delete()
            self.output = None
        self._resolved = False

    def upload_water(self) -> None:
        """Copy the water state into two textures (one upload each, no per-vertex Python loop).

        `water`: eta, h and the surface gradient (for normals); `water_extra`: foam and the caustic
        focus factor. Rays of sunlight refracted by a surface with curvature lap(eta) land with
        their spacing scaled by J = 1 + d (1 - 1/1.33) lap(eta) at depth d, so the light on the floor
        is multiplied by 1/J: crests focus it, troughs spread it.
        """
        w = self.sim.water
        d = self.water_data
        eta = d[..., 0]
        h = w.read("h")
        np.add(w.read("bed"), h, out=eta, casting="unsafe")
        d[..., 1] = h
        gz, gx = np.gradient(eta, self.dx)
        d[..., 2] = gx
        d[..., 3] = gz
        e = np.pad(eta, 2, mode="edge")
        s = 2.0 * self.dx
        lap = (e[2:-2, 4:] + e[2:-2, :-4] + e[4:, 2:-2] + e[:-4, 2:-2] - 4.0 * eta) / (s * s)
        j = 1.0 + d[..., 1] * (1.0 - 1.0 / 1.33) * lap
        focus = np.clip(1.0 / np.maximum(j, 0.3), 0.35, 3.0)
        x = self.water_extra
        x[..., 0] = np.clip(self.foam.field * 255.0, 0, 255)
        x[..., 1] = focus * (255.0 / 3.0)
        self.water_tex.upload(d)
        self.extra_tex.upload(x)

    def _advance_effects(self) -> None:
        t = float(self.sim.time)
        dt = min(max(t - self._last_time, 0.0), 5.0)
        self._last_time = t
        n = int(np.ceil(dt / 0.02))
        for _ in range(n):          # effects follow simulated time, whatever the frame rate
            self.spray.step(dt / n, self._surface)
        for pts in self.spray.landed:
            self.foam.add_points(pts)
        self.spray.landed.clear()
        self.foam.step(dt)
        self.contacts = [(ct, p) for ct, p in self.contacts if t - ct < 1.0]

    def _shared_uniforms(self, camera: OrbitCamera) -> dict[str, Any]:
        level = self.sim.level
        aspect = self.width / self.height
        rw, rh = self.render_size
        vp = camera.view_projection(aspect)
        lights = list(level.lights)[:4]
        lp = np.zeros((4, 3), np.float32)
        lc = np.zeros((4, 3), np.float32)
        lr = np.ones(4, np.float32)
        for i, L in enumerate(lights):
            lp[i], lc[i], lr[i] = L.position, np.asarray(L.color) * L.intensity, L.radius
        sun = np.asarray(level.sky.sun_direction, float)
        proj = camera.projection(aspect)
        return dict(
            view_projection=vp, view=camera.view(), inverse_view_projection=np.linalg.inv(vp),
            camera_position=camera.eye, sun_direction=sun / np.linalg.norm(sun),
            sun_color=level.sky.sun_color, sky_zenith=level.sky.zenith, sky_horizon=level.sky.horizon,
            light_count=len(lights), light_position=lp, light_color=lc, light_radius=lr,
            pool_size=self.pool_size, cell=self.dx, grid_nx=self.grid[0], grid_nz=self.grid[1],
            viewport=(rw, rh), viewport_height=float(rh), focal=proj[1, 1],
            near=camera.near, far=camera.far, refraction_strength=self.refraction_strength,
            caustic_strength=self.caustic_strength, absorption=self.absorption, deep_color=self.deep_color,
            deck_tint=(1.05, 0.93, 0.78), dry_depth=1e-4, max_depth=max(2.0 * level.water.level, 0.05),
        )

    def water_stride(self, camera: OrbitCamera) -> int:
        """Cells per side of one drawn water quad: 1, or 2 / 4 when cells are tiny on screen."""
        if self.water_lod_pixels <= 0:
            return 1
        nx, nz = self.grid
        lx, lz = self.pool_size
        eye = np.asarray(camera.eye, float)
        y = float(getattr(getattr(self.sim.level, "water", None), "level", 0.0))
        nearest = np.array([np.clip(eye[0], 0.0, lx), y, np.clip(eye[2], 0.0, lz)])
        dist = max(float(np.linalg.norm(eye - nearest)), 1e-6)
        focal_px = camera.projection(self.width / self.height)[1, 1] * self.render_size[1] / 2.0
        cell_px = self.dx * focal_px / dist            # an upper bound: no foreshortening counted
        stride = 1
        while stride < 4 and 2 * stride * cell_px <= self.water_lod_pixels and min(nx, nz) > 8 * stride:
            stride *= 2
        return stride

    def _mark(self, name: str) -> None:
        if self.profile is None:
            return
        import time
        gl().glFinish()
        now = time.perf_counter()
        if name != "start":
            self.profile[name] = self.profile.get(name, 0.0) + (now - self._t) * 1000.0
        self._t = now

    def draw(self, camera: OrbitCamera, debug: str | None = None) -> None:
        """Render one frame of the current simulation state into the frame target."""
        if debug is not None and debug not in DEBUG_VIEWS:
            raise ValueError(f"unknown debug view {debug!r}; choose from {', '.join(DEBUG_VIEWS)}")
        g = gl()
        self._resolved = False
        self._mark("start")
        self._advance_effects()
        self.upload_water()
        u = self._shared_uniforms(camera)
        groups = self.body_groups(camera.eye)
        for p in self.programs.values():
            with p:
                p.set(**u)
        self._mark("cpu")
        self.water_tex.bind(UNIT["water"])
        self.tile_diffuse.bind(UNIT["tile_diffuse"])
        self.extra_tex.bind(UNIT["water_extra"])
        self.sky_tex.bind(UNIT["sky"])
        g.glActiveTexture(g.GL_TEXTURE0 + UNIT["scene_color"])
        g.glBindTexture(g.GL_TEXTURE_2D, 0)
        g.glActiveTexture(g.GL_TEXTURE0 + UNIT["scene_depth"])
        g.glBindTexture(g.GL_TEXTURE_2D, 0)
        g.glBlendFuncSeparate(g.GL_SRC_ALPHA, g.GL_ONE_MINUS_SRC_ALPHA, g.GL_ONE, g.GL_ONE_MINUS_SRC_ALPHA)
        g.glDisable(g.GL_CULL_FACE)

        # 1. the scene under and around the water: opaque first
        self.scene.bind()
        g.glClearColor(*self.clear_color)
        g.glDepthMask(g.GL_TRUE)
        g.glClear(g.GL_COLOR_BUFFER_BIT | g.GL_DEPTH_BUFFER_BIT)
        g.glDisable(g.GL_BLEND)
        g.glEnable(g.GL_DEPTH_TEST)
        g.glDepthFunc(g.GL_LESS)
        with self.programs["pool"]:
            self.pool_mesh.draw()
        self._mark("pool")
        self._draw_bodies(groups, opaque=True)
        # the sky last, at the far plane, so only the pixels nothing covers pay for it
        g.glDepthFunc(g.GL_LEQUAL)
        g.glDepthMask(g.GL_FALSE)
        with self.programs["sky"]:
            g.glBindVertexArray(self.empty_vao.vao)
            g.glDrawArrays(g.GL_TRIANGLES, 0, 3)
        g.glDepthFunc(g.GL_LESS)
        g.glDepthMask(g.GL_TRUE)
        self._mark("sky")
        self._draw_bodies(groups, clip_side=-1)      # glass under the surface, refracted by it
        self._mark("glass_below")

        # 2. the frame: the scene, then the water surface, then what is above it
        self.scene.blit_to(self.frame)
        self._mark("copy")
        self.frame.bind()
        g.glActiveTexture(g.GL_TEXTURE0 + UNIT["scene_color"])
        g.glBindTexture(g.GL_TEXTURE_2D, self.scene.color)
        g.glActiveTexture(g.GL_TEXTURE0 + UNIT["scene_depth"])
        g.glBindTexture(g.GL_TEXTURE_2D, self.scene.depth)
        g.glDisable(g.GL_BLEND)
        g.glEnable(g.GL_DEPTH_TEST)
        g.glDepthMask(g.GL_TRUE)
        stride = self.water_stride(camera)
        with self.programs["water"] as p:
            p["debug_mode"] = 1 if debug == "depth" else 0
            p["grid_stride"] = stride
            g.glBindVertexArray(self.empty_vao.vao)
            blocks = [(n - 1 + stride - 1) // stride for n in self.grid]
            g.glDrawArrays(g.GL_POINTS, 0, blocks[0] * blocks[1])
        self._mark("water")
        self._draw_bodies(groups, clip_side=+1)
        self._mark("glass_above")
        if len(self.spray):
            g.glEnable(g.GL_BLEND)
            g.glDepthMask(g.GL_FALSE)
            g.glEnable(g.GL_PROGRAM_POINT_SIZE)
            self.spray_mesh.update(self.spray.vertices())
            with self.programs["particles"]:
                self.spray_mesh.draw()
            g.glDepthMask(g.GL_TRUE)
        if debug in ("velocity", "bounds"):
            self._draw_lines(self._debug_lines(debug))
        g.glDisable(g.GL_BLEND)
        g.glDepthMask(g.GL_TRUE)
        g.glBindVertexArray(0)
        self._mark("spray_debug")

    def _draw_bodies(self, groups: dict[str, list[tuple[Mesh, NDArray[np.float32], float]]],
                     clip_side: int = 0, opaque: bool = False) -> None:
        g = gl()
        if opaque:
            if groups["opaque"]:
                with self.programs["glass"] as p:
                    p["clip_side"] = 0
                    p["edge_strength"] = 0.0
                    for mesh, inst, _ in groups["opaque"]:
                        mesh.set_instances(inst)
                        mesh.draw()
            return
        if not (groups["glass"] or groups["liquid"]):
            return
        g.glEnable(g.GL_BLEND)
        g.glDepthMask(g.GL_FALSE)
        if groups["liquid"]:
            with self.programs["liquid"] as p:
                p["clip_side"] = clip_side
                for mesh, inst, _ in groups["liquid"]:
                    mesh.set_instances(inst)
                    mesh.draw()
        g.glEnable(g.GL_CULL_FACE)
        with self.programs["glass"] as p:
            p["clip_side"] = clip_side
            for mesh, inst, _ in groups["glass"]:
                mesh.set_instances(inst)
            for face in (g.GL_FRONT, g.GL_BACK):       # far side of the glass first, then the near side
                g.glCullFace(face)
                for mesh, inst, edge in groups["glass"]:
                    p["edge_strength"] = edge
                    mesh.draw()
        g.glDisable(g.GL_CULL_FACE)
        g.glDepthMask(g.GL_TRUE)
        g.glDisable(g.GL_BLEND)

    # -- debug -----------------------------------------------------------------------------
    def _debug_lines(self, view: str) -> NDArray[np.float32]:
        """Return (n, 6) line vertices (position, colour) for the velocity or bounds view."""
        if view == "velocity":
            w = self.sim.water
            nx, nz = self.grid
            u, ww = w.read("u"), w.read("w")
            uc = 0.5 * (u[:, :-1] + u[:, 1:])
            wc = 0.5 * (ww[:-1, :] + ww[1:, :])
            s = max(1, max(nx, nz) // 40)
            k, i = np.mgrid[s // 2:nz:s, s // 2:nx:s]
            k, i = k.ravel(), i.ravel()
            wet = w.read("h")[k, i] > 1e-4
            k, i = k[wet], i[wet]
            start = np.c_[(i + 0.5) * self.dx, self.water_data[k, i, 0] + 0.01, (k + 0.5) * self.dx]
            vec = np.c_[uc[k, i], np.zeros(len(k)), wc[k, i]]
            speed = np.linalg.norm(vec, axis=1)
            reach = s * self.dx * 1.6
            vec *= (np.minimum(speed * 0.5, reach) / np.maximum(speed, 1e-9))[:, None]
            seg = meshes.arrow_lines(start, vec)
            t = np.clip(speed / 0.5, 0, 1)
            col = np.c_[0.2 + 0.8 * t, 1.0 - 0.7 * t, 0.2 * (1 - t)]
            return np.c_[seg, np.repeat(col, 6, 0)].astype(np.float32)
        parts = [np.c_[b, np.tile((1.0, 0.9, 0.2), (len(b), 1))] for b in self.body_boxes]
        c = 0.03
        for _, p in self.contacts:
            p = np.asarray(p, float)
            cross = np.array([p - (c, 0, 0), p + (c, 0, 0), p - (0, c, 0), p + (0, c, 0), p - (0, 0, c), p + (0, 0, c)])
            parts.append(np.c_[cross, np.tile((1.0, 0.15, 0.1), (6, 1))])
        return np.vstack(parts).astype(np.float32) if parts else np.zeros((0, 6), np.float32)

    def _draw_lines(self, lines: NDArray[np.float32]) -> None:
        if len(lines) == 0:
            return
        g = gl()
        g.glDisable(g.GL_DEPTH_TEST)
        self.line_mesh.update(lines)
        with self.programs["lines"]:
            self.line_mesh.draw()
        g.glEnable(g.GL_DEPTH_TEST)

    # -- output ----------------------------------------------------------------------------
    @property
    def scaled(self) -> bool:
        """True when the scene is drawn below the output resolution and scaled up."""
        return self.render_size != (self.width, self.height)

    def resolve(self) -> Framebuffer:
        """Scale the last frame up to the output size (linear filtering) and return that target.

        At full resolution this is the frame target itself. `read_rgba` calls it; the bench calls it
        so that the upscale is part of the measured frame.
        """
        if not self.scaled:
            return self.frame
        if self.output is None:
            self.output = Framebuffer(self.width, self.height)
        if not self._resolved:
            self._upscale(self.output.id, self.width, self.height)
            self._resolved = True
        return self.output

    def _upscale(self, target: int, width: int, height: int) -> None:
        """Draw the frame's colour into framebuffer `target` (0: the window) at width x height."""
        g = gl()
        g.glBindFramebuffer(g.GL_FRAMEBUFFER, target)
        g.glViewport(0, 0, width, height)
        g.glDisable(g.GL_DEPTH_TEST)
        g.glDisable(g.GL_BLEND)
        g.glDisable(g.GL_CULL_FACE)
        g.glActiveTexture(g.GL_TEXTURE0 + UNIT["frame_color"])
        g.glBindTexture(g.GL_TEXTURE_2D, self.frame.color)
        with self.programs["upscale"]:
            g.glBindVertexArray(self.empty_vao.vao)
            g.glDrawArrays(g.GL_TRIANGLES, 0, 3)
        g.glBindVertexArray(0)
        g.glEnable(g.GL_DEPTH_TEST)

    def read_rgba(self) -> NDArray[np.uint8]:
        """Return the last frame as (height, width, 4) uint8 at the output size, top row first, alpha 255."""
        return self.resolve().read_rgba()

    def present(self, width: int | None = None, height: int | None = None) -> None:
        """Copy the frame to the window's framebuffer (windowed use), scaled to its size (linear)."""
        w, h = width or self.width, height or self.height
        if (w, h) == self.render_size:
            self.frame.blit_to(0, w, h, depth=False)
        else:
            self._upscale(0, w, h)
        gl().glBindFramebuffer(gl().GL_FRAMEBUFFER, 0)

    def errors(self) -> list[str]:
        """Return (and clear) pending GL errors."""
        return gl_errors()

    def close(self) -> None:
        """Free the GL objects and unsubscribe from the simulation."""
        if self.sim is not None:
            for kind, fn in ((ev.Splash, self._on_splash), (ev.Shattered, self._on_shattered),
                             (ev.Impact, self._on_impact)):
                self.sim.off(kind, fn)
        for p in self.programs.values():
            p.delete()
        for m in self.body_meshes.values():
            m.delete()
        if self.output is not None:
            self.output.delete()
        for obj in (self.scene, self.frame, self.water_tex, self.tile_diffuse, self.sky_tex,
                    self.extra_tex, self.pool_mesh, self.spray_mesh, self.line_mesh, self.empty_vao):
            obj.delete()


def screen_aspect(width: int, height: int) -> float:
    return width / max(height, 1)


__all__ = ["Renderer", "DEBUG_VIEWS", "math"]
