/** The bare table inside the floor of a signed-in frame (../layout.tsx). */
export { default } from '../../rows/page';
