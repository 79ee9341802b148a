"""Subcommands of `sabot`: one module each, discovered by `controller.cli`."""
