// Package image holds the test of restyplane's container image: build.sh makes the image
// from Debian packages, and the test starts both roles from it on a Docker network of its
// own. The first build of the root filesystem takes minutes, beyond go test's default
// 10-minute timeout: make test runs with -timeout 30m; alone, run
// go test -timeout 30m ./image.
package image
