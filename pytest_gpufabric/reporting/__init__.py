"""Reports: evidence attached to items (pytest-html, Allure) and rendering helpers."""
