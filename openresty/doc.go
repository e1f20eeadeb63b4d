// Package openresty is restyplane's applier: it brings one OpenResty instance to the head
// of the history, by a dynamic push when only backends, certificates and policies
// changed and by a tested reload otherwise, and records every attempt. It renders with
// package render and drives the instance through its Proxy interface, which
// nginx.Instance implements; a server that nginx or the renderer refuses is traced and
// left out so that it never holds back the others.
package openresty
