"""One esper Processor per file; the order they run in is written once, in engine/world.py."""
from engine.systems.base import System
from engine.systems.couple_water import CoupleWater
from engine.systems.fall_off import FallOff
from engine.systems.held_water import HeldWater
from engine.systems.integrate_bodies import IntegrateBodies
from engine.systems.shatter import Shatter
from engine.systems.step_fluid import StepFluid

__all__ = ["System", "IntegrateBodies", "FallOff", "StepFluid", "CoupleWater", "Shatter", "HeldWater"]
