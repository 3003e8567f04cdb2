"""The renderer: draws a Simulation's pool, water, bodies, spray and debug views with GLSL.

    window = create_context(1280, 720)              # or the game's own window (context current)
    renderer = Renderer(sim, 1280, 720)             # subscribes to the sim's Splash/Shattered/Impact
    camera = OrbitCamera.from_level(sim.level, 1280 / 720)
    renderer.draw(camera, debug=None)               # a DEBUG_VIEWS name: "depth", "divergence", ...
    renderer.present()                              # windowed: blit to the window
    image = renderer.read_rgba()                    # headless: (720, 1280, 4) uint8
    renderer.render_scale = 0.75                    # draw the 3D scene at 75% and upscale (any time)

Passes (each a method, each drawing with the GL state objects of engine/render/state.py):
  1. `_pass_scene` (the multisampled target under MSAA, else the scene target): the pool's floor
     (one coverage sample a pixel: its edges never show), deck, walls, obstacles and wave makers
     from their own geometry, a draw per material texture (caustics and Beer-Lambert light under
     water; the deck by a program without them), opaque bodies, the sky
     at the far plane (scissored to the screen outside the deck), then the parts of glass bodies
     below the water surface, blended back to front;
  2. `_pass_water`: under MSAA the scene is resolved (colour + depth, inside the screen box the
     water can cover) into the scene textures and the water drawn on in the multisampled target; without, the scene target is copied into the
     frame target and the water drawn there. The water surface (a mesh with a level of detail per tile, engine/render/water_lod.py), which
     samples the scene texture with an offset from its normal scaled by the water depth
     (refraction), sees it through the refracted ray's path in the water (absorption and
     scattering), mixes in the sky cube map by Fresnel, adds foam (only in the tiles that
     foam_tiles marks: elsewhere a program without it draws) and writes depth;
  3. `_pass_above`: the parts of glass bodies above the surface, back to front; the glints of
     shards under the surface, added on top of the water (shard_glint.frag); spray; debug lines,
     depth-tested; then the multisampled target is resolved into the frame target;
  4. `_pass_final` (`resolve` / `present`): FXAA when MSAA is off, and the scale from
     `render_size` to the output in one full-screen pass, then the debug view's legend at full
     resolution.
The targets are `render_size`: the output size times `render_scale` (never below
`min_render_height` rows, nor above the output). On Mesa llvmpipe pixel shading dominates a frame,
so this is the main knob; MSAA (`msaa`, 4 samples by default) costs most of the rest
(docs/render.md).
The renderer only reads the simulation.
"""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine import events as ev
from engine.meshes import vec3
from engine.terrain import DECK   # the deck's width round the pool (pool_mesh), all the ground there is
from engine.render import vertex_arrays as va
from engine.render import state as st
from engine.render.camera import OrbitCamera
from engine.render.context import gl
from engine.render.cover import bounds_box, sky_box
from engine.render.effects import Foam, Spray
from engine.render.glsl import Program
from engine.render.targets import CubeMap, Framebuffer, Mesh, MultisampleFramebuffer, Texture2D, gl_errors
from engine.render.textures import cube_faces, legend_image, material_map, palettes, streak_map
from engine.render.water_lod import TILE, blocks, tile_strides

# field views colour the water surface by a field and show a legend; line views draw over the frame
FIELD_VIEWS = {  # name: (debug_mode in water.frag, legend title, unit, palette row)
    "depth": (1, "depth h", "m", 0),
    "divergence": (2, "divergence du/dx + dw/dz", "1/s", 1),
    "vorticity": (3, "vorticity dw/dx - du/dz", "1/s", 1),
}
DEBUG_VIEWS = ("depth", "velocity", "divergence", "vorticity", "bounds")
GLASS_TINT = (0.35, 0.62, 0.45, 0.22)     # bottle-green soda-lime glass
# per body instance: model matrix (16), tint rgba (4), fill level (1), fade (1: opaque .. 0: gone)
BODY_INSTANCE = [4, 4, 4, 4, 4, 1, 1]
SHARD_TINT = (0.60, 0.85, 0.68, 0.30)
BOTTLE_VOLUME = 5e-4                        # m^3, a 0.5 l bottle's outside: the splash puff's scale
PROP_TINT = (0.75, 0.55, 0.35, 1.00)
UNIT = {"water": 0, "tile_diffuse": 1, "water_extra": 2, "sky": 3, "scene_color": 4, "scene_depth": 5,
        "frame_color": 6, "bed_diffuse": 7, "obstacle_diffuse": 8, "water_lod": 9, "streaks": 10,
        "debug_field": 11, "palette": 12, "overlay_image": 13, "surface_diffuse": 14}
N_SHARD_SHAPES = 8
FLOOR_SKIRT = 0.5        # m: how far the floor reaches past the walls, hidden under the deck
VELOCITY_RANGE = 0.8     # m/s: the flow speed the water_extra texture's velocity channels reach
DRY_DEPTH = 1e-3         # m: a film thinner than this (spilt water on a ledge, the last of a wave on a beach)
                         # draws no surface; draped over a steep bed cell it would stand as a bright sheet


class Renderer:
    """Draw one Simulation into an RGBA8 framebuffer of `width` x `height` (a GL context must be current)."""

    refraction_strength = 0.06    # screen fraction per unit normal tilt per metre of water
    caustic_strength = 1.0
    clear_color = (0.0, 0.0, 0.0, 1.0)
    # Anti-aliasing. MSAA: the 3D passes draw into a multisampled target (`msaa` samples a pixel,
    # capped by what the context offers; 0 or 1: none) that is resolved to the single-sampled
    # targets the shaders and the final pass read. FXAA: a full-screen pass on the resolved frame;
    # None means "when MSAA is off". BOTTLES_MSAA in the environment (`--msaa`) sets the default.
    DEFAULT_MSAA = 4
    fxaa: bool | None = None
    # Internal resolution of the 3D scene as a fraction of the output (see the module docstring).
    # Chosen by measurement with `bottles bench --render` on llvmpipe, 2 cores, 1280x720.
    DEFAULT_RENDER_SCALE = 0.6
    min_render_height = 360       # small outputs (tests, thumbnails) render at full resolution
    # Level of detail of the water mesh (engine/render/water_lod.py): per tile of 16 x 16 cells,
    # quads of up to `water_lod_pixels` on screen, and larger where the surface is flat to within
    # `water_lod_error` pixels. The fragment shader reads the normal, depth and foam of every cell
    # either way, so this drops only geometry, which llvmpipe pays for per triangle (and per
    # sample under MSAA). water_lod_pixels = 0: one quad per cell everywhere.
    water_lod_pixels = 4.0
    water_lod_error = 0.5

    def __init__(self, sim: Any, width: int, height: int) -> None:
        g = gl()
        self.width, self.height = int(width), int(height)
        self._render_scale = float(self.DEFAULT_RENDER_SCALE)
        self.render_size = self._internal_size()
        self.programs: dict[str, Program] = {}
        self._program_lights = -1
        self._build_programs(0)
        self.palette_tex = Texture2D(palettes(), linear=True)
        self.streak_tex = Texture2D(streak_map(), repeat=True)   # no mipmaps: llvmpipe's LOD costs more
        self.legend_tex: Texture2D | None = None
        self._legend_key: tuple | None = None
        self._legend: tuple[int, int] | None = None      # (width, height) of the legend this frame
        self._materials: dict[str, Texture2D] = {}
        self.empty_vao = Mesh(np.zeros((0, 1), np.float32), [1])
        self.scene = Framebuffer(*self.render_size)
        self.frame = Framebuffer(*self.render_size)
        self.multisampled: MultisampleFramebuffer | None = None   # the 3D passes' target under MSAA
        self._msaa = 0
        self.msaa = default_msaa()
        self.output: Framebuffer | None = None     # full-size target for read_rgba
        self.smoothed: Framebuffer | None = None   # the frame after FXAA, when it is then scaled up
        self._resolved = False
        self._sky_box: tuple[int, int, int, int] | None = None
        self._water_box: tuple[int, int, int, int] = (0, 0, width, height)
        self.spray_mesh = Mesh(np.zeros((0, 5), np.float32), [3, 2], mode="GL_POINTS")
        self.line_mesh = Mesh(np.zeros((0, 6), np.float32), [3, 3], mode="GL_LINES")
        self.block_mesh = Mesh(np.zeros((0, 3), np.float32), [3], mode="GL_POINTS")   # water quads
        self.lod_tex: Texture2D | None = None
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
            "deck": Program("pool.vert", "pool.frag", defines={**d, "DRY": 1}),
            "water": Program("water.vert", "water.geom", "water.frag", defines=d),
            "water_still": Program("water.vert", "water.geom", "water.frag", defines={**d, "NO_FOAM": 1}),
            "water_debug": Program("water.vert", "water.geom", "water.frag", defines={**d, "DEBUG_VIEW": 1}),
            "glass": Program("glass.vert", "glass.frag", defines=d),
            "liquid": Program("glass.vert", "liquid.frag"),
            "glint": Program("glass.vert", "shard_glint.frag"),
            "particles": Program("particles.vert", "particles.frag"),
            "lines": Program("lines.vert", "lines.frag"),
            "upscale": Program("sky.vert", "upscale.frag"),
            "fxaa": Program("sky.vert", "fxaa.frag"),
            "overlay": Program("overlay.vert", "overlay.frag"),
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
            # model ids are the old simulation's: a new one (next level, reset, load) numbers its
            # models afresh, so a mesh kept by id would draw another model's shape
            for key in [k for k in self.body_meshes if isinstance(k, tuple) and k[0] == "model"]:
                self.body_meshes.pop(key).delete()
        self.sim = sim
        level = sim.level
        self._build_programs(len(list(level.lights)))
        water = sim.water
        nz, nx = water.shape
        self.grid = (nx, nz)
        self.dx = float(water.dx)
        self.pool_size = (nx * self.dx, nz * self.dx)
        self.water_data = np.zeros((nz, nx, 4), np.float32)     # eta, h, d(eta)/dx, d(eta)/dz
        self.water_extra = np.zeros((nz, nx, 4), np.uint8)      # foam, caustic focus / 3, velocity u, w
        self.water_tex = Texture2D(self.water_data, linear=True)
        self.extra_tex = Texture2D(self.water_extra, linear=True)
        self.debug_data = np.zeros((nz, nx), np.float32)
        self._dry: NDArray[np.bool_] | None = None          # the dry cells the shore field was made for
        self._shore_field = np.zeros((nz, nx), np.float32)
        self.debug_tex = Texture2D(self.debug_data, linear=True)
        self.look = level.look
        self.tile_diffuse = self._material(self.look.walls)
        self.bed_diffuse = self._material(self.look.bed)
        self.obstacle_diffuse = self._material(self.look.obstacles)
        basin = va.pool_mesh(self.pool_size, level.pool.wall_height, deck=DECK)
        lx, lz = self.pool_size
        hw = float(level.pool.wall_height)
        self.deck_corners = np.array([(-DECK, hw, -DECK), (lx + DECK, hw, -DECK), (lx + DECK, hw, lz + DECK),
                                      (-DECK, hw, lz + DECK)])
        solids = [va.obstacle_mesh(ob, self.pool_size) for ob in level.obstacles]
        bed = va.bed_mesh(self._terrain_bed(level, water), self.dx)
        # one mesh per material texture (pool.frag reads one texture a draw): basin = floor (6
        # vertices), four inner walls (24), then the deck and its outer skirt, all dry (pool.frag's DRY)
        self.wall_mesh = Mesh(basin[6:30], [3, 3, 2, 1])
        self.deck_mesh = Mesh(basin[30:], [3, 3, 2, 1])
        self.bed_mesh = Mesh(bed, [3, 3, 2, 1])
        self.solid_mesh = Mesh(np.concatenate(solids) if solids else np.zeros((0, 9), np.float32), [3, 3, 2, 1])
        # the floor (the basin's first quad), reaching FLOOR_SKIRT under the deck on every side:
        # it is drawn with one coverage sample a pixel (see _pass_scene), so a pixel whose centre
        # falls just outside the pool still gets floor in every sample the walls then leave
        floor = basin[:6].copy()
        mid = np.array([lx, lz]) / 2.0
        floor[:, [0, 2]] += np.sign(floor[:, [0, 2]] - mid) * FLOOR_SKIRT
        floor[:, 6:8] = floor[:, [0, 2]] * (basin[1, 6] / basin[1, 0])     # uv = (x, z) / repeat
        self.floor_mesh = Mesh(floor, [3, 3, 2, 1])
        self.machine_mesh = Mesh(np.zeros((0, 9), np.float32), [3, 3, 2, 1])
        self.sky_tex = CubeMap(cube_faces(level.sky))
        self.spray = Spray(gravity=float(level.gravity))
        self.foam = Foam((nz, nx), self.dx)
        self.contacts = []
        self._last_time = float(sim.time)
        sim.on(ev.Splash, self._on_splash)
        sim.on(ev.Shattered, self._on_shattered)
        sim.on(ev.Impact, self._on_impact)

    def _material(self, name: str) -> Texture2D:
        """The colour + gloss texture of a [look] material, made once per renderer."""
        if name not in self._materials:
            self._materials[name] = Texture2D(material_map(name), mipmap=True, repeat=True)
        return self._materials[name]

    @staticmethod
    def _terrain_bed(level: Any, water: Any) -> NDArray[np.float64]:
        """The bed without the obstacles (those are drawn from their own geometry): the level's
        terrain rebuilt with no obstacles, or the water's bed where that cannot be rebuilt."""
        bed = np.asarray(water.read("bed"), float)
        if not level.obstacles:
            return bed
        try:
            import dataclasses
            from engine.terrain import build_bed
            terrain = np.asarray(build_bed(dataclasses.replace(level, obstacles=())), float)
        except Exception:          # a heightmap that cannot be read again: keep the water's bed
            return bed
        return terrain if terrain.shape == bed.shape else bed

    def _machines(self) -> NDArray[np.float32]:
        """Wave makers at the current time: paddles at their stroke's displacement, source pipes.

        A piston paddle moving at U(t) = (stroke / 2) omega cos(omega t + phase) (WaveMakers)
        stands at X(t) = (stroke / 2) sin(omega t + phase) (times the same soft-start envelope)
        from its rest position at the inner edge of its zone, `width` from its side."""
        level = self.sim.level
        t = float(self.sim.time)
        parts = []
        top = min(level.pool.wall_height, level.water.level + 0.12)
        for m in level.wave_makers:
            env = 1.0
            if m.ramp > 0.0:
                x = min(max(t / m.ramp, 0.0), 1.0)
                env = x * x * (3.0 - 2.0 * x)
            phase = 2.0 * math.pi * t / m.period + math.radians(m.phase)
            if m.kind == "paddle":
                offset = (m.width if m.width is not None else 0.3) + env * 0.5 * (m.stroke or 0.0) * math.sin(phase)
                parts.append(va.paddle_mesh(m, self.pool_size, offset, top))
            elif m.position is not None:
                parts.append(va.source_mesh(m, 0.0, max(level.water.level - 0.06, 0.02)))
        return np.concatenate(parts) if parts else np.zeros((0, 9), np.float32)

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
        # the puff scales with the body: Splash.volume = V speed / 10 (couple_water.py) gives the
        # body's volume V; k = V / BOTTLE_VOLUME is 1 for a bottle and ~0.02 for a 5 cm shard, so a
        # shower of shards entering the water throws a few drops each, not a bottle's puff each
        k = float(np.clip(e.volume / (0.1 * max(float(e.speed), 1e-3)) / BOTTLE_VOLUME, 0.02, 1.0))
        count = int(np.clip((40 + 60 * speed) * k + 2e5 * e.volume, 3, 600))
        self.spray.emit((x, y, z), speed * 0.8, count, size=0.008 * (0.5 + 0.5 * k))
        if np.isfinite(surf):
            self.foam.add(x, z, 0.06 + 0.03 * speed * k, 0.9 * max(k, 0.2))

    def _on_shattered(self, e: ev.Shattered) -> None:
        x, y, z = e.position
        surf = float(self._surface(np.array([x]), np.array([z]))[0])
        # the puff scales with the water thrown: the held water released (3e5 drops a m^3, as a
        # splash's 2e5) and, at the surface, a splash of 60; a dry empty bottle throws only a few
        # small drops, so the shards, drawn before the spray, stay in sight; a break deeper than
        # 10 cm throws nothing up and leaves no foam over its shards
        if np.isfinite(surf) and y < surf - 0.1:
            return
        wet = bool(np.isfinite(surf) and y < surf + 0.3)
        count = int(np.clip(20 + 60 * wet + 3e5 * e.released_volume, 20, 500))
        self.spray.emit((x, max(y, surf) if np.isfinite(surf) else y, z), 1.5 + 0.3 * float(e.impulse),
                        count, spread=0.9, up=0.8, size=0.005)
        if wet:
            self.foam.add(x, z, 0.15, 1.0)

    def _on_impact(self, e: ev.Impact) -> None:
        self.contacts.append((float(e.time), vec3(e.point)))

    # -- meshes ----------------------------------------------------------------------------
    def _fallback_models(self) -> None:
        v, t = va.bottle_mesh()
        self.bottle_verts = v[:, :3].astype(np.float64)
        self.body_meshes["bottle"] = Mesh(va.with_bary(v, t), [3, 3, 3], instance_layout=BODY_INSTANCE)
        lv, lt = va.liquid_mesh()
        self.body_meshes["liquid"] = Mesh(va.with_bary(lv, lt), [3, 3, 3], instance_layout=BODY_INSTANCE)
        self.inner_samples = va.inner_samples()
        self.shard_verts = []
        for s in range(N_SHARD_SHAPES):
            sv, st = va.shard_shape(s)
            self.shard_verts.append(sv)
            self.body_meshes[("shard", s)] = Mesh(va.flat_shade(sv, st), [3, 3, 3],
                                                  instance_layout=BODY_INSTANCE)
        box = np.array([[x, y, z] for x in (-.05, .05) for y in (-.05, .05) for z in (-.05, .05)])
        faces = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6),
                 (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
        self.prop_verts = box
        self.body_meshes["prop"] = Mesh(va.flat_shade(box, faces), [3, 3, 3], instance_layout=BODY_INSTANCE)

    def _model_mesh(self, mid: int, model: Any, flat: bool) -> tuple[Mesh, NDArray[np.float64]]:
        key = ("model", mid, flat)      # a simulation's model ids are append-only (attach forgets them)
        verts = np.asarray(model.vertices, float)
        if key not in self.body_meshes:
            tris = np.asarray(model.triangles, int)
            if flat:
                data = va.flat_shade(verts, tris)
            else:
                nrm = np.zeros_like(verts)
                p = verts[tris]
                fn = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
                for c in range(3):
                    np.add.at(nrm, tris[:, c], fn)
                nrm /= np.linalg.norm(nrm, axis=1, keepdims=True) + 1e-12
                data = va.with_bary(np.c_[verts, nrm].astype(np.float32), tris.astype(np.uint32))
            self.body_meshes[key] = Mesh(data, [3, 3, 3], instance_layout=BODY_INSTANCE)
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
        rot = va.quat_to_matrices(store.quat[slots])
        kinds = np.asarray(store.kind[slots], int)
        dist = np.linalg.norm(pos - eye, axis=1)
        models, model_id = store.models, store.model_id
        use_models = len(models) > 0
        groups: dict[Any, list[int]] = {}
        for j, s in enumerate(slots):
            kind = ("bottle", "shard", "prop")[kinds[j]] if kinds[j] < 3 else "prop"
            key: tuple[Any, ...]
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
                corners = va.box_lines(lo, hi) @ rot[j].T + pos[j]
                self.body_boxes.append(corners)
            tint = {"bottle": GLASS_TINT, "shard": SHARD_TINT}.get(kind, PROP_TINT)
            inst = np.empty((len(idx), 22), np.float32)
            inst[:, :16] = va.model_matrices(rot[idx], pos[idx])
            inst[:, 16:20] = tint
            inst[:, 20] = -1e9
            inst[:, 21] = 1.0
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
                levels = va.fill_levels(samples, rot[idx], pos[idx], frac)
                inst[:, 20] = levels
                if (frac > 0).any():
                    linst = inst.copy()
                    linst[:, :16] = va.model_matrices(rot[idx], lpos, scale)
                    out["liquid"].append((self.body_meshes["liquid"], linst[frac > 0], 0.0))
                out["glass"].append((mesh, inst, 0.0))
            elif kind == "shard":
                try:   # shards past the cap fade out, whole (engine/systems/shatter.py, glass.frag)
                    with self.sim._context():
                        inst[:, 21] = self.sim.get_system("Shatter").slot_alpha(slots[idx])
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

    @property
    def msaa(self) -> int:
        """Samples a pixel the 3D passes draw with (0: no multisampling); set any time."""
        return self._msaa

    @msaa.setter
    def msaa(self, value: int) -> None:
        want = int(value)
        samples = min(want, MultisampleFramebuffer.max_samples()) if want > 1 else 0
        samples = samples if samples > 1 else 0
        if samples == self._msaa and (samples == 0) == (self.multisampled is None):
            return
        if self.multisampled is not None:
            self.multisampled.delete()
            self.multisampled = None
        if samples:
            self.multisampled = MultisampleFramebuffer(*self.render_size, samples)
        self._msaa = samples
        self._resolved = False

    @property
    def fxaa_on(self) -> bool:
        """Whether the final pass runs FXAA: as set, or (fxaa None) when there is no MSAA."""
        return (self._msaa == 0) if self.fxaa is None else bool(self.fxaa)

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
            if self.multisampled is not None:
                self.multisampled.resize(*size)
            if self.smoothed is not None:
                self.smoothed.resize(*size)
        if self.output is not None and (self.output.width, self.output.height) != (self.width, self.height):
            self.output.delete()
            self.output = None
        self._resolved = False

    def upload_water(self) -> None:
        """See `_upload_water`. A state the simulation stopped on with NaN in it (a mod wrote it;
        the game says so and pauses) still draws: its casts to bytes are not warned about again."""
        with np.errstate(invalid="ignore"):
            self._upload_water()

    def _upload_water(self) -> None:
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
        dry = h < 2e-3
        if self._dry is None or not np.array_equal(dry, self._dry):   # shores move slowly
            self._dry = dry
            self._shore_field = self._shore(h)
        foam = self.foam.field + 0.8 * self._shore_field
        np.clip(foam * 255.0, 0, 255, out=foam)
        x[..., 0] = foam
        x[..., 1] = focus * (255.0 / 3.0)
        # cell-centred velocity, 128 + 127 v / VELOCITY_RANGE in b (u) and a (w): one texture
        # upload fewer a frame (each costs milliseconds on llvmpipe), 6 mm/s steps
        u, ww = w.read("u"), w.read("w")
        k = 0.5 * 127.0 / VELOCITY_RANGE
        for c, (a0, a1) in ((2, (u[:, :-1], u[:, 1:])), (3, (ww[:-1, :], ww[1:, :]))):
            vc = np.add(a0, a1, dtype=np.float32)
            vc *= k
            vc += 128.0
            np.clip(vc, 1.0, 255.0, out=vc)
            x[..., c] = vc
        self.water_tex.upload(d)
        self.extra_tex.upload(x)

    def _shore(self, h: NDArray) -> NDArray[np.float32]:
        """Nearness of each wet cell to dry ground (1 beside it, 0.5 two cells off, 0.2 three off,
        then 0): where the water meets a beach or an obstacle, foam collects. The pool's own
        sides do not count: a tiled wall gathers no surf line."""
        dry = np.asarray(h) < 2e-3
        near = np.zeros(dry.shape, np.float32)
        d = np.pad(dry, 1, constant_values=False)
        for weight in (1.0, 0.5, 0.2):
            grown = d[1:-1, 1:-1] | d[:-2, 1:-1] | d[2:, 1:-1] | d[1:-1, :-2] | d[1:-1, 2:]
            np.maximum(near, np.where(grown & ~dry, weight, 0.0), out=near)
            d = np.pad(grown, 1, constant_values=False)
        return near

    def _debug_field(self, view: str) -> tuple[float, float]:
        """Fill the debug texture with a field of the water; return the legend's range.

        divergence = du/dx + dw/dz and vorticity = dw/dx - du/dz (1/s), from the face velocities by
        centred differences at cell centres. A signed field's range is symmetric, +-(its 99th
        percentile magnitude over the wet cells, at least 0.05 1/s), so white means zero."""
        w = self.sim.water
        if view == "depth":
            return 0.0, float(max(1.5 * self.sim.level.water.level, 0.05))
        u, ww = np.asarray(w.read("u"), np.float64), np.asarray(w.read("w"), np.float64)
        if view == "divergence":
            f = (u[:, 1:] - u[:, :-1]) / self.dx + (ww[1:, :] - ww[:-1, :]) / self.dx
        else:
            uc = 0.5 * (u[:, :-1] + u[:, 1:])
            wc = 0.5 * (ww[:-1, :] + ww[1:, :])
            f = np.gradient(wc, self.dx, axis=1) - np.gradient(uc, self.dx, axis=0)
        wet = np.asarray(w.read("h")) > 1e-4
        f = np.where(wet, f, 0.0)
        self.debug_data[:] = f
        self.debug_tex.upload(self.debug_data)
        m = float(np.percentile(np.abs(f[wet]), 99)) if wet.any() else 0.0
        m = max(m, 0.05)
        m = float(f"{m:.1g}") if m < 1 else round(m, 1)      # a round number for the legend
        return -m, m

    def _set_legend(self, view: str, lo: float, hi: float) -> None:
        _, title, unit, row = FIELD_VIEWS[view]
        key = (view, lo, hi)
        if key != self._legend_key:
            img = legend_image(title, lo, hi, unit, row)
            if self.legend_tex is None:
                self.legend_tex = Texture2D(img, linear=True)
            else:
                self.legend_tex.upload(img)
            self._legend_key = key
            self._legend_size = (img.shape[1], img.shape[0])
        self._legend = self._legend_size

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
            caustic_strength=self.caustic_strength, absorption=self.look.absorption,
            scattering=self.look.scattering, scatter_color=self.look.scatter_color,
            deep_color=self.look.scatter_color, foam_strength=self.look.foam, time=float(self.sim.time),
            water_light=self._water_light(level.sky), velocity_range=VELOCITY_RANGE,
            wet_darkens=int(self.look.bed in ("sand", "stone")),
            deck_tint=(1.05, 0.93, 0.78), dry_depth=DRY_DEPTH,
        )

    @staticmethod
    def _water_light(sky: Any) -> NDArray[np.float64]:
        """The light in the water that scattering returns: the sun by its height, and the sky."""
        sun = np.asarray(sky.sun_direction, float)
        sun_y = max(sun[1] / np.linalg.norm(sun), 0.0)
        return np.asarray(sky.sun_color) * sun_y * 0.6 + 0.5 * np.asarray(sky.zenith)

    def water_tiles(self, camera: OrbitCamera) -> NDArray[np.int32]:
        """The stride of each 16 x 16 tile of the water mesh this frame (engine/render/water_lod.py)."""
        nx, nz = self.grid
        eye = np.asarray(camera.eye, float)
        focal_px = camera.projection(self.width / self.height)[1, 1] * self.render_size[1] / 2.0
        wet = self.water_data[..., 1] >= 1e-4
        y = float(getattr(getattr(self.sim.level, "water", None), "level", 0.0))
        return tile_strides(self.water_data[..., 0], wet, self.dx, eye, focal_px,
                            self.water_lod_pixels, self.water_lod_error, y)

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
        self._resolved = False
        self._mark("start")
        self._advance_effects()
        self.upload_water()
        u = self._shared_uniforms(camera)
        self._legend = None
        mode = 0
        if debug in FIELD_VIEWS:
            lo, hi = self._debug_field(debug)
            u["field_range"] = (lo, hi)
            mode = FIELD_VIEWS[debug][0]
            self._set_legend(debug, lo, hi)
        groups = self.body_groups(camera.eye)
        self.machine_mesh.update(self._machines())
        self._sky_box = sky_box(u["view_projection"], self.deck_corners, *self.render_size)
        # the part of the screen the water can cover: the pool's footprint between the lowest and
        # the highest eta (every vertex of the water mesh is a cell's eta, a blend of two, or the
        # lower of two). Only that part of the scene is resolved for the water to read, and the
        # water's refracted reads are clamped into it (scene_box, in texture coordinates)
        lx, lz = self.pool_size
        eta = self.water_data[..., 0]
        finite = eta[np.isfinite(eta)]      # (a stopped state with NaN in it still draws)
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
        self._water_box = bounds_box(u["view_projection"], (0.0, lo, 0.0), (lx, hi, lz), *self.render_size)
        x, y, bw, bh = self._water_box
        rw, rh = self.render_size
        u["scene_box"] = (max((x + 0.5) / rw, 0.001), max((y + 0.5) / rh, 0.001),
                          min((x + bw - 0.5) / rw, 0.999), min((y + bh - 0.5) / rh, 0.999))
        for p in self.programs.values():
            with p:
                p.set(**u)
        self._mark("cpu")
        self._bind_textures()
        self._pass_scene(groups)
        self._pass_water(camera, mode)
        self._pass_above(groups, debug)
        gl().glBindVertexArray(0)
        self._mark("spray_debug")
        if self.multisampled is not None:    # each pixel's samples averaged: the anti-aliased frame
            self.multisampled.resolve_to(self.frame)
            self._mark("resolve")

    def _bind_textures(self) -> None:
        g = gl()
        for tex, unit in ((self.water_tex, "water"), (self.tile_diffuse, "tile_diffuse"),
                          (self.bed_diffuse, "bed_diffuse"), (self.obstacle_diffuse, "obstacle_diffuse"),
                          (self.extra_tex, "water_extra"), (self.sky_tex, "sky"),
                          (self.streak_tex, "streaks"),
                          (self.debug_tex, "debug_field"), (self.palette_tex, "palette")):
            tex.bind(UNIT[unit])
        for unit in ("scene_color", "scene_depth"):     # not sampled while the scene is drawn into
            g.glActiveTexture(g.GL_TEXTURE0 + UNIT[unit])
            g.glBindTexture(g.GL_TEXTURE_2D, 0)

    def _pass_scene(self, groups: dict[str, list[tuple[Mesh, NDArray[np.float32], float]]]) -> None:
        """Scene target: the pool, obstacles, wave makers, opaque bodies, the sky, glass under water."""
        g = gl()
        (self.multisampled or self.scene).bind()
        g.glClearColor(*self.clear_color)
        with st.OPAQUE:
            g.glClear(g.GL_COLOR_BUFFER_BIT | g.GL_DEPTH_BUFFER_BIT)
            with self.programs["pool"]:
                # the floor first, with one coverage sample a pixel (no multisampling: on
                # llvmpipe each sample costs): it is the lowest surface and its edges lie under
                # the deck, so none shows; the walls drawn next cut it per sample
                g.glDisable(g.GL_MULTISAMPLE)
                self._draw_surface(self.floor_mesh, self.bed_diffuse)
                g.glEnable(g.GL_MULTISAMPLE)
            with self.programs["deck"]:
                # the deck next: nearest the camera, it hides the walls' outer sides from the
                # depth test before they are shaded
                self._draw_surface(self.deck_mesh, self.tile_diffuse)
            with self.programs["pool"]:
                self._draw_surface(self.wall_mesh, self.tile_diffuse)
                self._draw_surface(self.bed_mesh, self.bed_diffuse)
                self._draw_surface(self.solid_mesh, self.obstacle_diffuse)
                self._draw_surface(self.machine_mesh, self.tile_diffuse)     # painted: colour not read
            self._mark("pool")
            self._draw_bodies(groups, opaque=True)
        # the sky last, at the far plane, so only the pixels nothing covers pay for it; and only
        # in the box of the screen outside the deck's outline (under MSAA every pixel the sky's
        # triangle covers costs, hidden or not)
        if self._sky_box is not None:
            g.glEnable(g.GL_SCISSOR_TEST)
            g.glScissor(*self._sky_box)
            with st.SKY, self.programs["sky"]:
                g.glBindVertexArray(self.empty_vao.vao)
                g.glDrawArrays(g.GL_TRIANGLES, 0, 3)
            g.glDisable(g.GL_SCISSOR_TEST)
        self._mark("sky")
        self._draw_bodies(groups, clip_side=-1)      # glass under the surface, refracted by it
        self._mark("glass_below")

    @staticmethod
    def _draw_surface(mesh: Mesh, diffuse: Texture2D) -> None:
        """Draw pool-layout `mesh` (if it has vertices) with `diffuse` as its material."""
        if mesh.count:
            diffuse.bind(UNIT["surface_diffuse"])
            mesh.draw()

    def _pass_water(self, camera: OrbitCamera, mode: int) -> None:
        """Frame target: the scene copied, then the water surface refracting and reflecting it.

        Under MSAA the multisampled target already holds the scene and goes on being drawn into;
        the scene is resolved (colour, and one sample's depth) into the `scene` textures that the
        water samples, since a shader cannot read a multisampled renderbuffer."""
        g = gl()
        tiled = self.water_lod_pixels > 0
        foamy = 0      # the first `foamy` quads are drawn with foam, the rest by water_still
        if tiled:      # (uploads bind textures: before the scene's are bound for the water to read)
            strides = self.water_tiles(camera)
            quads = blocks(strides, (self.grid[1], self.grid[0]))
            on = self.foam_tiles()[quads[:, 1] // TILE, quads[:, 0] // TILE]
            foamy = int(on.sum())
            self.block_mesh.update(quads[np.argsort(~on, kind="stable")].astype(np.float32))
            levels = np.log2(strides).astype(np.uint8)
            if self.lod_tex is None:
                self.lod_tex = Texture2D(levels, linear=False)
            else:
                self.lod_tex.upload(levels)
            self.lod_tex.bind(UNIT["water_lod"])
        if self.multisampled is not None:
            self.multisampled.resolve_to(self.scene, depth=True, box=self._water_box)
            self._mark("copy")
            self.multisampled.bind()
        else:
            self.scene.blit_to(self.frame)
            self._mark("copy")
            self.frame.bind()
        g.glActiveTexture(g.GL_TEXTURE0 + UNIT["scene_color"])
        g.glBindTexture(g.GL_TEXTURE_2D, self.scene.color)
        g.glActiveTexture(g.GL_TEXTURE0 + UNIT["scene_depth"])
        g.glBindTexture(g.GL_TEXTURE_2D, self.scene.depth)
        if mode or not tiled:
            foamy = self.block_mesh.count
        draws = (("water_debug" if mode else "water", 0, foamy),
                 ("water_still", foamy, self.block_mesh.count - foamy))
        with st.OPAQUE:
            for name, first, count in draws:
                if tiled and count <= 0:
                    continue
                with self.programs[name] as p:
                    p["debug_mode"] = mode
                    p["lod_blocks"] = int(tiled)
                    p["lod_tile"] = TILE if tiled else 0
                    if tiled:
                        g.glBindVertexArray(self.block_mesh.vao)
                        g.glDrawArrays(g.GL_POINTS, first, count)
                    else:
                        p["grid_stride"] = 1
                        g.glBindVertexArray(self.empty_vao.vao)
                        g.glDrawArrays(g.GL_POINTS, 0, (self.grid[0] - 1) * (self.grid[1] - 1))
                        break
        self._mark("water")

    def foam_tiles(self) -> NDArray[np.bool_]:
        """Which 16 x 16 tiles of the water mesh may show foam, (tz, tx) bool as water_tiles.

        water.frag draws foam where the foam texel read exceeds 0.004 or the flow speed 0.06 m/s,
        both bilinear reads of water_extra: a pixel of a tile's quads reads cells within one of
        the tile's (the quad's corners are cell centres, or the wall). A value filtered from
        texels is within their range, and |v| of a blend of velocities is at most the largest |v|
        among them, so a tile none of whose cells within two has any foam or flows faster than
        0.04 m/s (margin for the 8-bit channels' rounding) draws exactly the same without foam."""
        x = self.water_extra
        nz, nx = x.shape[:2]
        k = VELOCITY_RANGE / 127.0
        u = (x[..., 2].astype(np.float32) - 128.0) * k
        w = (x[..., 3].astype(np.float32) - 128.0) * k
        cell = (x[..., 0] > 0) | (u * u + w * w > 0.04 * 0.04)
        for axis in (0, 1):                  # grow by two cells (3 x 3 maximum, twice, per axis)
            for _ in range(2):
                grown = cell.copy()
                if axis == 0:
                    grown[1:] |= cell[:-1]
                    grown[:-1] |= cell[1:]
                else:
                    grown[:, 1:] |= cell[:, :-1]
                    grown[:, :-1] |= cell[:, 1:]
                cell = grown
        rows = np.logical_or.reduceat(cell, np.arange(0, max(nz - 1, 1), TILE), axis=0)
        return np.logical_or.reduceat(rows, np.arange(0, max(nx - 1, 1), TILE), axis=1)

    def _pass_above(self, groups: dict[str, list[tuple[Mesh, NDArray[np.float32], float]]],
                    debug: str | None) -> None:
        """Frame target: glass above the surface, spray, and the debug lines (depth-tested)."""
        self._draw_bodies(groups, clip_side=+1)
        shards = [(mesh, inst) for mesh, inst, edge in groups["glass"] if edge > 0.0]
        if shards:      # shards under the surface keep a glint through it (shard_glint.frag)
            with st.GLINT, self.programs["glint"]:
                for mesh, inst in shards:
                    mesh.set_instances(inst)
                    mesh.draw()
        self._mark("glass_above")
        if len(self.spray):
            self.spray_mesh.update(self.spray.vertices())
            with st.PARTICLES, self.programs["particles"]:
                self.spray_mesh.draw()
        if debug in ("velocity", "bounds"):
            self._draw_lines(self._debug_lines(debug))

    def _draw_bodies(self, groups: dict[str, list[tuple[Mesh, NDArray[np.float32], float]]],
                     clip_side: int = 0, opaque: bool = False) -> None:
        if opaque:
            if groups["opaque"]:
                with st.OPAQUE, self.programs["glass"] as p:
                    p["clip_side"] = 0
                    p["edge_strength"] = 0.0
                    p["sparkle"] = 0.0
                    for mesh, inst, _ in groups["opaque"]:
                        mesh.set_instances(inst)
                        mesh.draw()
            return
        if not (groups["glass"] or groups["liquid"]):
            return
        if groups["liquid"]:
            with st.TRANSPARENT, self.programs["liquid"] as p:
                p["clip_side"] = clip_side
                for mesh, inst, _ in groups["liquid"]:
                    mesh.set_instances(inst)
                    mesh.draw()
        with self.programs["glass"] as p:
            p["clip_side"] = clip_side
            for mesh, inst, _ in groups["glass"]:
                mesh.set_instances(inst)
            for state in (st.TRANSPARENT_BACK, st.TRANSPARENT_FRONT):   # far side of the glass first
                with state:
                    for mesh, _inst, edge in groups["glass"]:
                        p["edge_strength"] = edge
                        p["sparkle"] = edge      # shards (edge 1) sparkle; bottles (edge 0) do not
                        mesh.draw()

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
            seg = va.arrow_lines(start, vec)
            t = np.clip(speed / 0.5, 0, 1)
            col = np.c_[0.2 + 0.8 * t, 1.0 - 0.7 * t, 0.2 * (1 - t)]
            return np.c_[seg, np.repeat(col, 6, 0)].astype(np.float32)
        parts = [np.c_[b, np.tile((1.0, 0.9, 0.2), (len(b), 1))] for b in self.body_boxes]
        c = 0.03
        for _, point in self.contacts:
            p = np.asarray(point, float)
            cross = np.array([p - (c, 0, 0), p + (c, 0, 0), p - (0, c, 0), p + (0, c, 0), p - (0, 0, c), p + (0, 0, c)])
            parts.append(np.c_[cross, np.tile((1.0, 0.15, 0.1), (6, 1))])
        return np.vstack(parts).astype(np.float32) if parts else np.zeros((0, 6), np.float32)

    def _draw_lines(self, lines: NDArray[np.float32]) -> None:
        """Debug lines, depth-tested against the frame: the deck and the walls hide what is behind them."""
        if len(lines) == 0:
            return
        self.line_mesh.update(lines)
        with st.LINES, self.programs["lines"]:
            self.line_mesh.draw()

    # -- output ----------------------------------------------------------------------------
    @property
    def scaled(self) -> bool:
        """True when the scene is drawn below the output resolution and scaled up."""
        return self.render_size != (self.width, self.height)

    def resolve(self) -> Framebuffer:
        """Run the final pass (FXAA, the scale to the output size, the legend) into the output
        target and return it. `read_rgba` calls it; the bench calls it so that the final pass is
        part of the measured frame."""
        if self.output is None:
            self.output = Framebuffer(self.width, self.height)
        if not self._resolved:
            self._pass_final(self.output.id, self.width, self.height)
            self._resolved = True
        return self.output

    def _pass_final(self, target: int, width: int, height: int) -> None:
        """Draw the frame into framebuffer `target` (0: the window) at width x height, anti-aliased
        (FXAA on the frame's own texel grid), then the legend at full resolution. When the frame is
        smaller than the output, FXAA runs at the frame's size into `smoothed` and a plain bilinear
        copy scales that up: on llvmpipe each texture read costs, and FXAA's five to nine reads a
        pixel are paid on the smaller grid only."""
        g = gl()
        rw, rh = self.render_size
        if not self.fxaa_on:
            self._screen_pass(self.frame, target, width, height, "upscale")
        elif (width, height) == (rw, rh):
            self._screen_pass(self.frame, target, width, height, "fxaa")
        else:
            if self.smoothed is None:
                self.smoothed = Framebuffer(rw, rh)
            self._screen_pass(self.frame, self.smoothed.id, rw, rh, "fxaa")
            self._screen_pass(self.smoothed, target, width, height, "upscale")
        if self._legend is not None and self.legend_tex is not None:
            scale = min(1.0, width / 640.0)        # a legend keeps to a third of a small frame
            lw, lh = self._legend[0] * scale, self._legend[1] * scale
            m = 8 * scale
            # top right corner: the game's HUD text holds the top left
            x1, y1 = 1.0 - 2.0 * m / width, 1.0 - 2.0 * m / height
            rect = (x1 - 2.0 * lw / width, y1 - 2.0 * lh / height, x1, y1)
            self.legend_tex.bind(UNIT["overlay_image"])
            with st.OVERLAY, self.programs["overlay"] as p:
                p["rect"] = rect
                g.glDrawArrays(g.GL_TRIANGLES, 0, 6)
        g.glBindVertexArray(0)

    def _screen_pass(self, source: Framebuffer, target: int, width: int, height: int, program: str) -> None:
        """One full-screen triangle of `program` ("fxaa", "upscale") from `source` into framebuffer `target`."""
        g = gl()
        g.glBindFramebuffer(g.GL_FRAMEBUFFER, target)
        g.glViewport(0, 0, width, height)
        g.glActiveTexture(g.GL_TEXTURE0 + UNIT["frame_color"])
        g.glBindTexture(g.GL_TEXTURE_2D, source.color)
        with st.SCREEN, self.programs[program] as p:
            p["source_texel"] = (1.0 / source.width, 1.0 / source.height)
            g.glBindVertexArray(self.empty_vao.vao)
            g.glDrawArrays(g.GL_TRIANGLES, 0, 3)

    def read_rgba(self) -> NDArray[np.uint8]:
        """Return the last frame as (height, width, 4) uint8 at the output size, top row first, alpha 255."""
        return self.resolve().read_rgba()

    def present(self, width: int | None = None, height: int | None = None) -> None:
        """Draw the frame into the window's framebuffer (windowed use) at its size: the final pass."""
        w, h = width or self.width, height or self.height
        self._pass_final(0, w, h)
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
        if self.smoothed is not None:
            self.smoothed.delete()
        obj: Any
        if self.multisampled is not None:
            self.multisampled.delete()
        for obj in (self.scene, self.frame, self.water_tex, self.sky_tex, self.extra_tex,
                    self.debug_tex, self.palette_tex, self.streak_tex, self.wall_mesh, self.deck_mesh,
                    self.bed_mesh, self.solid_mesh, self.machine_mesh,
                    self.spray_mesh, self.line_mesh, self.block_mesh, self.floor_mesh, self.empty_vao,
                    *self._materials.values()):
            obj.delete()
        if self.legend_tex is not None:
            self.legend_tex.delete()
        if self.lod_tex is not None:
            self.lod_tex.delete()


def default_msaa() -> int:
    """MSAA samples a new Renderer asks for: BOTTLES_MSAA (`--msaa`) when set, else DEFAULT_MSAA."""
    raw = os.environ.get("BOTTLES_MSAA", "").strip()
    if not raw:
        return Renderer.DEFAULT_MSAA
    try:
        return max(int(raw), 0)
    except ValueError:
        raise ValueError(f"BOTTLES_MSAA={raw!r}: expected a sample count, 0 (off), 2 or 4") from None


__all__ = ["Renderer", "DEBUG_VIEWS"]
