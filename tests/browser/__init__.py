"""The app in a real browser, Debian's Chromium driven by Playwright; conftest.py holds the server and browser
fixtures."""
