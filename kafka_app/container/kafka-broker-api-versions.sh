#!/bin/bash
# The healthcheck docker-compose.yml runs, at the path apache/kafka's image has Kafka's tool at,
# so the compose file is the same for both images. Kafka's tool lives in kafka-tools, which the
# broker does not need; this asks ApiVersions (v0) as kafka_app/apache/readiness.py does and
# exits 0 only when the broker answers without an error.
# Usage: kafka-broker-api-versions.sh --bootstrap-server 127.0.0.1:9092
set -uo pipefail
address=127.0.0.1:9092
while [ $# -gt 0 ]; do
  case $1 in
    --bootstrap-server) address=$2; shift 2 ;;
    *) shift ;;
  esac
done
exec 3<>"/dev/tcp/${address%:*}/${address##*:}" || exit 1
# Size 21; ApiVersions (18) v0, correlation id 7, client id "healthcheck" (11 bytes).
printf '\x00\x00\x00\x15\x00\x12\x00\x00\x00\x00\x00\x07\x00\x0bhealthcheck' >&3
reply=$(timeout 5 head -c 10 <&3 | od -An -tx1 | tr -d ' \n')
# Size (4 bytes), then correlation id 7 and error code 0.
[ "${reply:8:12}" = "000000070000" ]
