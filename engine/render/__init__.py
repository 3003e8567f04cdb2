"""Drawing: GLSL programs from shaders/, numpy mesh builders, headless (EGL) or windowed output.

Import order matters for pyglet: choose the backend (`context.select_backend` or
`context.create_context`) before anything imports pyglet.gl. The pure-numpy parts (camera, meshes,
textures, effects) import no GL at all.

    from engine.render.context import create_context
    from engine.render.renderer import Renderer
    from engine.render.camera import OrbitCamera
"""
from __future__ import annotations
