// Package image holds the test of restyplane's container image: build.sh makes the image
// from Debian packages, and the test starts both roles from it on a Docker network of its
// own.
package image
