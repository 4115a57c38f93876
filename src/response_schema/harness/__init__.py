"""The conformance harness: runs any implementation against any corpus. The reference never imports it."""
