"""Where an instructor publishes the student pack, as the students' feedback says it
(`--pack-url` of make mark-class and make gradescope): a URL that no page can read as
more than a URL, and the sentence that tells a student how to check with it."""

import argparse
import re

# PACK is where the student unzipped it.
CHECK_YOUR_WORK = ("Check your work before you submit: download the student pack from {url} "
                   "and unzip it; then, in the folder that holds your work, run "
                   "`python3 PACK/check.py` (PACK: the pack's folder)")
SAFE_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/%+=&?#:@!$,;-]*)?")
TRAILING = ".,;:!?"  # what a page's linker reads as the sentence's, not the URL's
BAD_URL = ("{url!r} is not a URL a page can show safely: http:// or https://, then letters, "
           "digits and . _ ~ / % + = & ? # : @ ! $ , ; - only, not ending in . , ; : ! ?")


def pack_url(text: str) -> str:
    """The URL, for argparse: nothing in it that Markdown or HTML could read as more."""
    if not SAFE_URL.fullmatch(text) or text[-1] in TRAILING:
        raise argparse.ArgumentTypeError(BAD_URL.format(url=text))
    return text
