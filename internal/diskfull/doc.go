// Package diskfull recognises the errors of a full disk or an exhausted quota on
// every platform, so that a failed write is reported as E_DISK_FULL (reasonCode
// "disk_full") instead of a vague internal error.
package diskfull
