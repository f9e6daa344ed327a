"""What every floor of the tool uses: escaped text and visible diffs, safe file trees,
UTF-8 console streams."""
