"""One esper Processor per file; the order they run in is written once, in engine/world.py."""
from engine.systems.base import System
from engine.systems.confine_vortices import ConfineVortices
from engine.systems.couple_water import CoupleWater
from engine.systems.disperse import MergeWaves, SplitWaves
from engine.systems.integrate_bodies import IntegrateBodies
from engine.systems.shatter import Shatter
from engine.systems.step_fluid import StepFluid

__all__ = ["System", "IntegrateBodies", "ConfineVortices", "SplitWaves", "StepFluid", "MergeWaves", "CoupleWater", "Shatter"]
