#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A tiny container image made here, offline, from Debian's busybox-static:
# one layer with /bin/busybox and its applets, /etc/os-release (ID=spurbox),
# Env FOO=image and PATH=/bin, WorkingDir /srv. Written into DIR as an OCI
# image layout (DIR/oci), a `docker save` tarball (DIR/spurbox.tar) and,
# where mksquashfs is installed, a squashfs file (DIR/spurbox.sqsh).
# The tests, the benchmarks and `make demo` use it.
#   tools/busybox-image.sh DIR
set -eu
D=${1:?usage: busybox-image.sh DIR}
[ -x /bin/busybox ] || { echo "busybox-image: needs /bin/busybox (busybox-static)" >&2; exit 1; }
mkdir -p "$D"
cd "$D"
rm -rf img && mkdir -p img/rootfs/bin img/rootfs/etc img/rootfs/srv img/rootfs/tmp img/oci/blobs/sha256 img/arc
cp /bin/busybox img/rootfs/bin/
for a in sh cat ls id env pwd sleep touch echo test grep wc true hostname; do ln -s busybox "img/rootfs/bin/$a"; done
echo 'ID=spurbox' >img/rootfs/etc/os-release
chmod 1777 img/rootfs/tmp
tar --sort=name --owner=0 --group=0 -C img/rootfs -cf img/layer.tar .
diff_id=$(sha256sum img/layer.tar | cut -d' ' -f1)
gzip -n -c img/layer.tar >img/layer.tar.gz
layer=$(sha256sum img/layer.tar.gz | cut -d' ' -f1)
cp img/layer.tar.gz "img/oci/blobs/sha256/$layer"
printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin","FOO=image"],"WorkingDir":"/srv"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
	"$diff_id" >img/config.json
cfg=$(sha256sum img/config.json | cut -d' ' -f1)
cp img/config.json "img/oci/blobs/sha256/$cfg"
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%d}]}' \
	"$cfg" "$(stat -c %s img/config.json)" "$layer" "$(stat -c %s img/layer.tar.gz)" >img/manifest.json
man=$(sha256sum img/manifest.json | cut -d' ' -f1)
cp img/manifest.json "img/oci/blobs/sha256/$man"
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d}]}' \
	"$man" "$(stat -c %s img/manifest.json)" >img/oci/index.json
echo '{"imageLayoutVersion":"1.0.0"}' >img/oci/oci-layout
# docker save: manifest.json, the config, the layer under its digest
mkdir -p "img/arc/$diff_id" && cp img/layer.tar "img/arc/$diff_id/layer.tar"
cp img/config.json "img/arc/$cfg.json"
printf '[{"Config":"%s.json","RepoTags":["spurbox:1"],"Layers":["%s/layer.tar"]}]' "$cfg" "$diff_id" >img/arc/manifest.json
tar -C img/arc -cf spurbox.tar .
rm -rf oci && mv img/oci oci
if command -v mksquashfs >/dev/null; then
	rm -f spurbox.sqsh
	mksquashfs img/rootfs spurbox.sqsh -quiet -no-progress -all-root >/dev/null
fi
rm -rf img
chmod -R a+rX oci spurbox.tar
[ -f spurbox.sqsh ] && chmod a+r spurbox.sqsh
exit 0
