"""Part II: distributionally robust safe sample screening (Hanada et al.). Not yet implemented."""
