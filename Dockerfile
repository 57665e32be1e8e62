# The referee under gunicorn, on Redis: docker run -e REDIS_URL=redis://redis:6379/0 -e REFEREE_SECRET=... -p 8000:8000 referee
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    REFEREE_SEEDS_DIR=/app/seeds \
    REFEREE_BIND=0.0.0.0:8000

WORKDIR /app
COPY pyproject.toml README.md ./
COPY service ./service
COPY schemas ./schemas
COPY seeds ./seeds
RUN pip install . \
    && useradd --create-home --uid 10001 referee

USER referee
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=2s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz')"
CMD ["gunicorn", "-c", "python:service.gunicorn_conf", "service:create_app()"]
