"""Corpus parsing: seed text files and JSON Lines / CSV sources → ``Paper`` objects.

Owns everything between raw input and ``bot.core.models.Paper``: reading files
(``load``, ``seeds``, ``records``), cleaning LaTeX/Markdown to Unicode
(``clean``, ``latex``, ``markdown``), deriving titles, names, TL;DRs and
keywords (``derive``, ``names``, ``keywords``, ``text``), code links
(``urls``) and stable ids (``ids``). Pure: no index, no database, no Slack.

Public API (docs/architecture.md "Layers"): ``load_papers``, ``iter_records``,
``parse_seed_text``, ``clean_text``, ``seeds_fingerprint``, ``paper_id_for``,
``acronyms``, ``CorpusError``, plus ``LoadStats`` for skip counts; ``link_key``,
``paper_link_keys``, ``link_lookup`` (``link_keys``: which paper a posted link names).
OpenReview notes and arXiv snapshot records are read in their own shapes (``sources``).
"""

from bot.corpus.clean import clean_text
from bot.corpus.errors import CorpusError
from bot.corpus.ids import paper_id_for
from bot.corpus.keywords import keywords
from bot.corpus.link_keys import link_key, link_lookup, paper_link_keys
from bot.corpus.load import iter_records, load_papers, not_accepted_summary, seeds_fingerprint
from bot.corpus.records import LoadStats
from bot.corpus.seeds import parse_seed_text, venue_from_header
from bot.corpus.sentences import acronyms, sentences

__all__ = [
    "CorpusError",
    "LoadStats",
    "acronyms",
    "clean_text",
    "iter_records",
    "keywords",
    "link_key",
    "link_lookup",
    "load_papers",
    "not_accepted_summary",
    "paper_id_for",
    "paper_link_keys",
    "parse_seed_text",
    "seeds_fingerprint",
    "sentences",
    "venue_from_header",
]
