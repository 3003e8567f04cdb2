"""`bottles bench --render`: frames per second of the default level at 1280x720 with 256 x 256 water.

The calm pool's own grid is 128 x 96; the bench rebuilds the same level on a square 4 m pool with a
256 x 256 grid (cell 4/256 m), keeping its depth, walls, bottles, sky and camera. Drawing only:
the simulation is stepped between frames but not timed. Headless (EGL) unless a display is chosen.
Anti-aliasing as the renderer's default (4x MSAA; `--msaa` or BOTTLES_MSAA chooses). `water_quads`
is the number of quads the water mesh drew in the last frame (its level of detail); `fps_rippled`
the rate with a ripple over the whole pool, where no tile of the mesh is flat. `cpu_ms_per_frame`
is the CPU time the process spent a frame (llvmpipe's threads included): on a shared host it says
what a frame costs when wall-clock figures only say how busy the host was.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from engine.paths import DEFAULT_LEVEL


def bench_level(n: int = 256) -> Any:
    """Return the default level on an n x n grid."""
    from engine.levels import load_level
    level = load_level(DEFAULT_LEVEL)
    side = max(level.pool.size)
    pool = dataclasses.replace(level.pool, size=(side, side), cell=side / n)
    return dataclasses.replace(level, pool=pool)


def run(quick: bool = False) -> dict[str, Any]:
    """Render warm-up frames, then time frames (drawn, scaled up to 1280x720 and finished; not read back)."""
    from engine.render.context import create_context, gl
    window = create_context(64, 64)
    from engine.render.camera import OrbitCamera
    from engine.render.renderer import Renderer
    from engine.world import Simulation
    width, height = 1280, 720
    sim = Simulation(bench_level(256))
    g = gl()
    renderer = Renderer(sim, width, height)
    camera = OrbitCamera.from_level(sim.level, width / height)
    frames = 10 if quick else 40
    for _ in range(3):
        sim.step()
        renderer.draw(camera)
        renderer.resolve()
    g.glFinish()

    cpu = [0.0]

    def timed_frames(n: int) -> float:
        """Seconds to draw n frames (a simulation step before each, not timed); the process's CPU
        seconds for them (llvmpipe's threads included) accumulate in cpu[0]."""
        total = 0.0
        for _ in range(n):
            sim.step()
            t, c = time.perf_counter(), time.process_time()
            renderer.draw(camera)
            renderer.resolve()
            g.glFinish()
            total += time.perf_counter() - t
            cpu[0] += time.process_time() - c
        return total

    draw_s = timed_frames(frames)
    cpu_s = cpu[0]
    renderer.profile = {}
    for _ in range(3):
        renderer.draw(camera)
        t = time.perf_counter()
        renderer.resolve()
        g.glFinish()
        renderer.profile["upscale"] = renderer.profile.get("upscale", 0.0) + (time.perf_counter() - t) * 1000
    passes = {k: round(v / 3, 2) for k, v in renderer.profile.items()}
    water_quads = renderer.block_mesh.count
    renderer.profile = None
    # the same frames with every cell's own two triangles (no geometry level of detail)
    lod = renderer.water_lod_pixels
    renderer.water_lod_pixels = 0
    exact_frames = max(3, frames // 4)
    exact_fps = exact_frames / timed_frames(exact_frames)
    renderer.water_lod_pixels = lod
    # the worst case for the level of detail: a 1 cm ripple of 0.3 m wavelength over the whole pool
    # (no tile is flat; every tile keeps quads of water_lod_pixels)
    water = sim.water
    x = (np.arange(water.shape[1]) + 0.5) * water.dx
    water.h[:] = np.maximum(water.h + 0.01 * np.sin(2 * np.pi * x / 0.3)[None, :], 0.0)
    rippled_fps = exact_frames / timed_frames(exact_frames)
    rippled_quads = renderer.block_mesh.count
    t = time.perf_counter()
    renderer.read_rgba()
    read_ms = (time.perf_counter() - t) * 1000
    nz, nx = sim.water.shape
    out = {
        "renderer": g.gl_info.get_renderer(),
        "size": f"{width}x{height}",
        "render_scale": renderer.render_scale,
        "render_size": "x".join(map(str, renderer.render_size)),
        "msaa": renderer.msaa,
        "fxaa": renderer.fxaa_on,
        "water_grid": f"{nx}x{nz}",
        "water_quads": water_quads,
        "frames": frames,
        "ms_per_frame": 1000 * draw_s / frames,
        "fps": frames / draw_s,
        "cpu_ms_per_frame": 1000 * cpu_s / frames,
        "fps_every_cell_triangulated": exact_fps,
        "fps_rippled": rippled_fps,
        "water_quads_rippled": rippled_quads,
        "readback_ms": read_ms,
        "pass_ms": passes,
        "target_fps": 30,
    }
    renderer.close()
    window.close()
    sim.close()
    return out
