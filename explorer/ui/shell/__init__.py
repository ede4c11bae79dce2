"""The application shell: the main window, menus, help, settings, style and start-up checks."""
