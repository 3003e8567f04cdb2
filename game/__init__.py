"""The Bottles & Water sandbox: window, input, camera, HUD and the `bottles` command."""
