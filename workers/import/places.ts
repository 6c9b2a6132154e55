/**
 * Loader of the urban cores (`l5--nz-cities/urban_cores.csv`: Stats NZ functional urban areas 2023,
 * columns source_id, name, type_name, latitude, longitude) for src/domain/places.ts.
 */
import { toUrbanCore, PlaceError, type UrbanCore } from '../../src/domain/places.js';
import { ImportError, readCsvFile } from './sources.js';

/**
 * Reads every urban core with its urban class and regional council.
 * @throws ImportError for a malformed row, an unknown core (id, name or class) or a file without
 *   exactly the 53 cores the region table was written for.
 */
export function loadUrbanCores(file: string): UrbanCore[] {
  const cores = readCsvFile(file, ['source_id', 'name', 'type_name', 'latitude', 'longitude']).map(({ line, row }) => {
    const id = Number(row.source_id);
    const lat = Number(row.latitude);
    const lng = Number(row.longitude);
    if (!Number.isInteger(id) || row.latitude === '' || row.longitude === '' || !Number.isFinite(lat) || !Number.isFinite(lng)) {
      throw new ImportError(file, `bad source_id or coordinates: ${JSON.stringify(row)}`, line);
    }
    try {
      return toUrbanCore({ id, name: row.name.trim(), typeName: row.type_name.trim(), lat, lng });
    } catch (e) {
      if (e instanceof PlaceError) throw new ImportError(file, e.message, line);
      throw e;
    }
  });
  if (cores.length !== 53) throw new ImportError(file, `expected 53 urban cores, found ${cores.length}`);
  return cores;
}
