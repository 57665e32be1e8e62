"""HTTP in, HTTP out: flask-smorest blueprints and the error shape."""
