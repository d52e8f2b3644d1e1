"""A JupyterHub for the course on one machine (README "Deploying to a class"; issue 22).

Run it from the course's environment with the `hub` extra installed and the pinned proxy
(`make test-hub` does both; by hand: ``pip install --require-hashes -r requirements/hub.txt``
and ``npm ci`` in deploy/npm)::

    COURSE_HUB_STATE=/srv/jupyterhub jupyterhub -f deploy/jupyterhub_config.py

Everything below can be set from the environment, so the same file serves the CI test
(tests/hub/), the class benchmark (benchmarks/bench_class.py) and a real hub:

* ``COURSE_HUB_TRIAL=1``: a trial hub. Any user name logs in (DummyAuthenticator) and every
  student's server runs as the hub's own user, in its own home folder under the state folder
  (SimpleLocalProcessSpawner). No isolation between students at all: for a test on loopback
  only, never for a class.
* otherwise, a real one-machine hub: students log in with their system account (PAM, the
  default authenticator) and each server runs as that system user in their home folder
  (LocalProcessSpawner, the default). What to change for a real class:

  - the authenticator: your institution's login, e.g. ``c.JupyterHub.authenticator_class =
    "github"`` or ``"generic-oauth"`` from the oauthenticator package; with it, students need
    no system account only if the spawner makes one: ``c.LocalAuthenticator.create_system_users
    = True`` for PAM/local authenticators, or systemdspawner's ``dynamic_users``;
  - the spawner: ``c.JupyterHub.spawner_class = "systemd"`` (the jupyterhub-systemdspawner
    package, what The Littlest JupyterHub uses) enforces the memory and CPU limits below with
    cgroups; LocalProcessSpawner only passes them to the server as MEM_LIMIT / CPU_LIMIT and
    enforces nothing;
  - TLS: put the hub behind a reverse proxy with a certificate, or set
    ``c.JupyterHub.ssl_cert`` / ``ssl_key``, and ``COURSE_HUB_IP`` to the public address;
  - admins: ``COURSE_HUB_ADMINS=alice,bob`` (they can start and stop any student's server).

``COURSE_HUB_PORT`` (8000), ``COURSE_HUB_API_PORT`` (8081) and ``COURSE_PROXY_API_PORT`` (8001)
pick the ports, ``COURSE_HUB_IP`` (127.0.0.1) the public address. The limits come from
benchmarks/bench_class.py and scripts/measure_memory.py (README, "Thirty students at once").
"""

# ruff: noqa: F821  (get_config is defined by JupyterHub when it loads this file)

import os
import sys
from pathlib import Path

c = get_config()

HERE = Path(__file__).resolve().parent
STATE = Path(os.environ.get("COURSE_HUB_STATE", "/srv/jupyterhub"))
STATE.mkdir(parents=True, exist_ok=True)
TRIAL = os.environ.get("COURSE_HUB_TRIAL", "") in ("1", "yes", "true")

# Where things listen: the public proxy, the proxy's own API and the hub's API, all on loopback
# unless COURSE_HUB_IP says otherwise (only the public port should ever face students).
c.JupyterHub.ip = os.environ.get("COURSE_HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(os.environ.get("COURSE_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("COURSE_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(os.environ.get('COURSE_PROXY_API_PORT', '8001'))}"
# The proxy pinned in deploy/npm/package-lock.json (`npm ci` there); a system-wide one otherwise.
_proxy = HERE / "npm" / "node_modules" / ".bin" / "configurable-http-proxy"
if _proxy.exists():
    c.ConfigurableHTTPProxy.command = [str(_proxy)]
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")

# State: the user database and the cookie secret, kept across restarts.
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.admin_access = False
c.Authenticator.admin_users = {name for name in os.environ.get("COURSE_HUB_ADMINS", "").split(",") if name}

# Each student's server: JupyterLab from this same environment (which has the course's
# libraries and nbgitpuller), opened on the lab; kernels idle for 20 minutes are shut down, so a
# student who opened many notebooks does not hold many kernels.
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.args = [
    "--MappingKernelManager.cull_idle_timeout=1200",
    "--MappingKernelManager.cull_interval=300",
]
c.Spawner.mem_guarantee = os.environ.get("COURSE_MEM_GUARANTEE", "384M")
c.Spawner.mem_limit = os.environ.get("COURSE_MEM_LIMIT", "512M")
c.Spawner.cpu_guarantee = float(os.environ.get("COURSE_CPU_GUARANTEE", "0.05"))
c.Spawner.cpu_limit = float(os.environ.get("COURSE_CPU_LIMIT", "1"))
# A whole class clicking the link at 9:00 starts many servers on few cores: be patient.
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.JupyterHub.concurrent_spawn_limit = 100

if TRIAL:
    c.JupyterHub.authenticator_class = "dummy"
    c.JupyterHub.spawner_class = "simple"
    c.SimpleLocalProcessSpawner.home_dir_template = str(STATE / "homes" / "{username}")
    if os.getuid() == 0:  # CI machines and containers often run as root; Jupyter asks to be told
        c.Spawner.args.append("--ServerApp.allow_root=True")

# Servers idle for an hour are stopped (their files stay); the culler runs as a hub service.
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [sys.executable, "-m", "jupyterhub_idle_culler", "--timeout=3600"],
    }
]
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
]
