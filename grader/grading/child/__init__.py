"""Code that runs in the sandbox child. Side: sandbox child: nothing here imports the trusted side."""
