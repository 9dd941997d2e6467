#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What `make test` needs from the system on a fresh Debian machine: Dovecot for the
# real IMAP tests, and a running PostgreSQL with a role for the store tests.
set -euo pipefail

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
apt_updated=""
apt_install() {
    [ -n "$apt_updated" ] || { $SUDO apt-get update -qq; apt_updated=1; }
    # policy-rc.d 101 keeps the packages from starting system-wide daemons we do not use.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
        $SUDO chmod +x /usr/sbin/policy-rc.d
        trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if ! command -v dovecot >/dev/null 2>&1 || [ ! -x /usr/lib/dovecot/lmtp ]; then
    echo "installing Dovecot (IMAP + LMTP) for the mail tests"
    apt_install dovecot-imapd dovecot-lmtpd openssl
fi
command -v openssl >/dev/null 2>&1 || apt_install openssl
# Maps are drawn as SVG and converted to PNG with cairosvg, which loads libcairo at run time.
if ! ldconfig -p | grep -q 'libcairo\.so\.2'; then
    echo "installing libcairo for the map pictures"
    apt_install libcairo2
fi
# The archive and letter pages are checked in a real browser (tests/e2e/test_archive_browser.py).
if ! command -v chromium >/dev/null 2>&1; then
    echo "installing Chromium for the browser tests"
    apt_install chromium fonts-dejavu-core
fi
# systemd-analyze checks deploy/mailbot.service (tests/unit/test_deploy_files.py).
command -v systemd-analyze >/dev/null 2>&1 || apt_install systemd

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "installing PostgreSQL for the store tests"
    apt_install postgresql
fi
cluster=$(pg_lsclusters --no-header 2>/dev/null | awk 'NR==1 {print $1" "$2}')
if [ -z "$cluster" ]; then
    version=$(ls /usr/lib/postgresql | sort -n | tail -1)
    $SUDO pg_createcluster "$version" main >/dev/null
    cluster="$version main"
fi
if ! pg_lsclusters --no-header | awk '{print $4}' | grep -q online; then
    echo "starting PostgreSQL $cluster"
    $SUDO pg_ctlcluster $cluster start
fi
# A password role on loopback TCP; each test session makes its own database.
as_postgres() {
    if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/sh -c "$*"; else sudo -u postgres sh -c "$*"; fi
}
as_postgres "psql -q -v ON_ERROR_STOP=1" >/dev/null <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mailbot') THEN
    CREATE ROLE mailbot LOGIN PASSWORD 'mailbot' CREATEDB;
  END IF;
END $$;
-- Dropping a test database WITH (FORCE) may have to end an autovacuum worker in it.
GRANT pg_signal_backend TO mailbot;
SQL
echo "system dependencies ready"
