# The referee under gunicorn (gevent workers) on Redis:
#   docker build -t referee . && docker run -p 8000:8000 -e REDIS_URL=redis://redis:6379/0 -e REFEREE_SECRET=... referee
# The first stage builds the wheel; only the installed wheel reaches the image, so it holds no
# sources, no build/ and no *.egg-info. The game data is inside the wheel.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY service ./service
COPY schemas ./schemas
COPY seeds ./seeds
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    REFEREE_BIND=0.0.0.0:8000
COPY --from=build /wheels /wheels
RUN pip install /wheels/*.whl \
    && rm -rf /wheels \
    && useradd --create-home --uid 10001 referee
USER referee
WORKDIR /home/referee
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=2s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz')"
CMD ["gunicorn", "-c", "python:service.server.gunicorn_conf", "service:create_app()"]
