"""The learning platforms a course collects work on (Canvas, Moodle, Gradescope): their
downloads read as they come into one hand-in per student or team, their times, and the
marks written back in each platform's own import format. download.py is the data every
platform module returns and the class marker reads; nothing here runs a student's code,
unpacks an archive or copies a file: the class marker does that with its own checks."""
